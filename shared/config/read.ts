import { isIP } from 'node:net';
import { SETTINGS, type SettingName, type Settings } from './settings.ts';
import type { Reader, SettingSpec, ValueOf } from './spec.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** A setting whose value is not one it allows: the message names the setting and what is allowed. */
export class SettingError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
    this.name = 'SettingError';
  }
}

const TRUE = ['true', '1', 'yes'];
const FALSE = ['false', '0', 'no'];

/** What a setting allows, in words: the second half of every error message and the table's "allowed" column. */
export function allowedText(spec: SettingSpec): string {
  switch (spec.type) {
    case 'int':
      return `an integer ${spec.min}–${spec.max}`;
    case 'number':
      return `a number ${spec.min}–${spec.max}`;
    case 'url':
      return 'an http(s) URL';
    case 'enum':
      return `one of ${spec.values.join(', ')}`;
    case 'flag':
      return 'true or false (1/0, yes/no)';
    case 'cidrs':
      return 'CIDR ranges or addresses, comma-separated (e.g. 10.0.0.0/8,2001:db8::/32)';
    case 'ip':
      return 'an IP address literal (e.g. 192.0.2.10 or 2001:db8::10)';
    case 'string':
      return spec.patternText ?? 'text';
  }
}

/** `a.b.c.d/n` or `x::y/n` (the prefix within the family's width), or a bare address (one host). */
function isCidr(text: string): boolean {
  const [net = '', bits, extra] = text.split('/');
  const family = isIP(net);
  if (family === 0 || net.includes('%') || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** Parses one raw value by its spec; undefined when it is not allowed. */
function parse(spec: SettingSpec, raw: string): unknown {
  switch (spec.type) {
    case 'int':
    case 'number': {
      const shape = spec.type === 'int' ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)$/;
      const n = Number(raw);
      return shape.test(raw) && n >= spec.min && n <= spec.max ? n : undefined;
    }
    case 'url': {
      if (!URL.canParse(raw)) return undefined;
      return ['http:', 'https:'].includes(new URL(raw).protocol) ? raw : undefined;
    }
    case 'enum':
      return spec.values.includes(raw) ? raw : undefined;
    case 'flag': {
      const v = raw.toLowerCase();
      return TRUE.includes(v) ? true : FALSE.includes(v) ? false : undefined;
    }
    case 'cidrs': {
      const parts = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return parts.every(isCidr) ? parts : undefined;
    }
    case 'ip':
      return isIP(raw) && !raw.includes('%') ? raw : undefined;
    case 'string':
      return !spec.pattern || spec.pattern.test(raw) ? raw : undefined;
  }
}

function fallback(spec: SettingSpec): unknown {
  if (spec.type === 'cidrs') return [];
  if (spec.type === 'ip') return undefined;
  return spec.default;
}

/**
 * The value of one setting from `env` (the process's environment by default): unset or blank gives its default;
 * a value it does not allow throws a SettingError naming the setting, the value (never a secret one's) and what
 * is allowed. Values are read afresh on each call: tests and `npm start` set them per process.
 */
export function setting<K extends SettingName>(name: K, env: Env = process.env): ValueOf<Settings[K]> {
  const spec: SettingSpec = SETTINGS[name];
  const raw = (env[name] ?? '').trim();
  if (raw === '') return fallback(spec) as ValueOf<Settings[K]>;
  const value = parse(spec, raw);
  if (value === undefined) {
    const shown = spec.secret ? '(value not shown)' : `"${raw}"`;
    throw new SettingError(name, `${name}=${shown} is not allowed: expected ${allowedText(spec)}`);
  }
  return value as ValueOf<Settings[K]>;
}

/**
 * Checks every setting these readers read, so a bad value stops a process at its start rather than at the first
 * request that reads it; all problems at once, one line each.
 */
export function checkSettings(readers: Reader | readonly Reader[], env: Env = process.env): void {
  const wanted: readonly Reader[] = typeof readers === 'string' ? [readers] : readers;
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, SettingSpec][]) {
    if (!spec.readers.some((r) => wanted.includes(r))) continue;
    try {
      setting(name, env);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length) throw new SettingError(problems.map((p) => p.split('=')[0]).join(', '), problems.join('\n'));
}
