/**
 * The one logger: a line of JSON per event (`level`, `msg`, then fields), which CloudWatch, serverless-offline's
 * log file, rc.d and journald all keep as is. Used by the functions, the shared code and the agent alike, so it
 * imports nothing.
 *
 * Secrets never reach a line: the caller passes identifiers, and the logger also removes what slipped through —
 * the value of any field named like a secret (at any depth), and API tokens, cluster keys and PEM private keys
 * found inside any text (an error message that quoted a request, say).
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Fields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /** a logger whose lines carry these fields too (a node id, a request id) */
  child(fields: Fields): Logger;
}

export interface LoggerOptions {
  /** fields on every line */
  base?: Fields;
  /** lines below this level are dropped (default: info) */
  minLevel?: Level;
  /** a `time` field (ISO 8601) first: for the agent's log file; CloudWatch stamps the functions' lines itself */
  time?: boolean;
  /** where a line goes (default: stdout through console.log, what the Lambda runtime captures) */
  write?: (line: string) => void;
}

const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export const REDACTED = '[redacted]';

/** Field names whose values are secrets, whatever the value looks like. */
const SECRET_FIELD =
  /^(authorization|cookie|password|passphrase|secret|token|agenttoken|admintoken|apptoken|accesstoken|userkey|apikey|privatekey|privatekeypem|encryptionkey|clusterkey|userdata|user_data|cloudinit|vncpassword)$/i;

/** Secrets recognisable in free text: API tokens (`hm_…`), cluster keys (`hmc_…`), PEM private keys. */
const SECRET_TEXT = [/\bhmc?_[A-Za-z0-9_-]{20,}/g, /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g];

/** Each SECRET_TEXT pattern starts with one of these: text holding none is returned as is, without a regex pass. */
const SECRET_MARKS = ['hm_', 'hmc_', '-----BEGIN '];

function scrubText(text: string): string {
  if (!SECRET_MARKS.some((m) => text.includes(m))) return text;
  return SECRET_TEXT.reduce((t, re) => t.replace(re, REDACTED), text);
}

/** A copy of `value` with secret fields and secret-looking text replaced; Errors become their message. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value instanceof Error) return scrubText(value.message);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Fields = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) && v !== null && v !== undefined && v !== '' ? REDACTED : redact(v, depth + 1);
  return out;
}

export function createLogger(o: LoggerOptions = {}): Logger {
  const min = ORDER[o.minLevel ?? 'info'];
  const write = o.write ?? ((line: string) => console.log(line));
  const base = o.base ?? {};
  const line = (level: Level, msg: string, fields: Fields = {}) => {
    if (ORDER[level] < min) return;
    const head = o.time ? { time: new Date().toISOString(), level, msg: scrubText(msg) } : { level, msg: scrubText(msg) };
    write(JSON.stringify({ ...head, ...(redact({ ...base, ...fields }) as Fields) }));
  };
  return {
    debug: (msg, fields) => line('debug', msg, fields),
    info: (msg, fields) => line('info', msg, fields),
    warn: (msg, fields) => line('warn', msg, fields),
    error: (msg, fields) => line('error', msg, fields),
    child: (fields) => createLogger({ ...o, base: { ...base, ...fields } }),
  };
}

/** The process's logger (functions and shared code). */
export const log: Logger = createLogger();
