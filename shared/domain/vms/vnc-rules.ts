import ipaddr from 'ipaddr.js';
import { type FieldError, ValidationError } from '#shared/errors/domain-errors';
import { VNC_HEIGHT, VNC_WIDTH } from '#shared/agent-api/vm-rules';

const RESOLUTION = /^(\d{1,5})x(\d{1,5})$/;

/** `1920x1080` → {width, height}; null when not of the form `WxH`. */
export function parseResolution(value: string): { width: number; height: number } | null {
  const m = RESOLUTION.exec(value);
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}

/** An IPv4 dotted quad or an IPv6 literal (no host names, no shorthand like `127.1`). */
export function isIpLiteral(value: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(value) || ipaddr.IPv6.isValid(value);
}

export interface VncRequest {
  vncEnabled: boolean;
  vncResolution: string;
  vncWait: boolean;
  vncBind?: string;
  vncPassword?: string;
  vncPort?: number;
}

/** E19 field rules beyond the schema; returns the bind address with its default applied. */
export function checkVnc(body: VncRequest): { bind: string } {
  const errors: FieldError[] = [];
  const bind = body.vncBind ?? '127.0.0.1';
  if (!isIpLiteral(bind)) errors.push({ field: 'body.vncBind', problem: `must be an IPv4 or IPv6 address literal, got "${bind}"` });
  const res = parseResolution(body.vncResolution);
  if (!res) errors.push({ field: 'body.vncResolution', problem: 'must be WIDTHxHEIGHT, e.g. 1920x1080' });
  else {
    if (res.width < VNC_WIDTH.min || res.width > VNC_WIDTH.max) {
      errors.push({ field: 'body.vncResolution', problem: `width must be within ${VNC_WIDTH.min}–${VNC_WIDTH.max}, got ${res.width}` });
    }
    if (res.height < VNC_HEIGHT.min || res.height > VNC_HEIGHT.max) {
      errors.push({ field: 'body.vncResolution', problem: `height must be within ${VNC_HEIGHT.min}–${VNC_HEIGHT.max}, got ${res.height}` });
    }
  }
  // bhyve's fbuf options are comma separated: a comma would end the password early
  if (body.vncPassword?.includes(',')) errors.push({ field: 'body.vncPassword', problem: 'must not contain commas' });
  if (errors.length) throw new ValidationError(errors);
  return { bind };
}
