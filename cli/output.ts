/**
 * How answers are shown: aligned tables for people, `--json` (the envelope's `data`, as JSON) for scripts.
 * Lists (an array, or a page `{data: [...], total}`) become tables of their scalar fields; an object becomes
 * `key: value` lines; nested values are shown as compact JSON.
 */
export interface Out {
  write(text: string): void;
}

/**
 * Text from the API (a task's output, a name an agent reported, an error) made harmless for a terminal: C0 and
 * C1 control characters (ESC starts the sequences that move the cursor, clear the screen, set the title or a
 * hyperlink; CR overwrites a line; BEL rings) and the Unicode bidirectional overrides (they reorder what is
 * shown) are printed as visible escapes (`\x1b`, `\u202e`). Newlines and tabs stay unless `oneLine`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, with newline and tab
const UNSAFE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const visible = (c: string) => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};
export const safe = (text: string, oneLine = false): string => text.replace(oneLine ? UNSAFE_LINE : UNSAFE, visible);

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  // JSON.stringify already writes control characters as \u escapes; the bidi overrides it leaves
  if (typeof v === 'object') return safe(JSON.stringify(v));
  return safe(String(v));
};

export function table(rows: Record<string, unknown>[], columns?: string[]): string {
  if (!rows.length) return '(none)\n';
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r).filter((k) => r[k] === null || typeof r[k] !== 'object')))];
  const cells = rows.map((r) => cols.map((c) => cell(r[c]).replace(/\s+/g, ' ')));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (vals: string[]) => `${vals.map((v, i) => (i === vals.length - 1 ? v : v.padEnd(widths[i]))).join('  ')}\n`;
  return line(cols.map((c) => c.toUpperCase())) + cells.map(line).join('');
}

export function keyValues(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  const w = Math.max(0, ...keys.map((k) => k.length));
  return keys.map((k) => `${`${k}:`.padEnd(w + 1)} ${cell(obj[k])}\n`).join('');
}

/** The data of a successful answer, for people. */
export function human(data: unknown): string {
  if (Array.isArray(data)) return table(data as Record<string, unknown>[]);
  if (data && typeof data === 'object') {
    const page = data as { data?: unknown; total?: unknown };
    if (Array.isArray(page.data))
      return `${table(page.data as Record<string, unknown>[])}${typeof page.total === 'number' ? `(${page.data.length} of ${page.total})\n` : ''}`;
    return keyValues(data as Record<string, unknown>);
  }
  return data === null || data === undefined ? '' : `${safe(String(data))}\n`;
}

/**
 * The data as JSON for scripts. JSON.stringify escapes C0 controls; DEL, the C1 controls and the bidi overrides
 * (which can only stand inside strings) are escaped too, so the same data reaches a script and no terminal acts on it.
 */
export const json = (data: unknown) =>
  `${JSON.stringify(data, null, 2).replace(/[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
