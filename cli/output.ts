/**
 * How answers are shown: aligned tables for people, `--json` (the envelope's `data`, as JSON) for scripts.
 * Lists (an array, or a page `{data: [...], total}`) become tables of their scalar fields; an object becomes
 * `key: value` lines; nested values are shown as compact JSON.
 */
export interface Out {
  write(text: string): void;
}

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
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
  return data === null || data === undefined ? '' : `${String(data)}\n`;
}

export const json = (data: unknown) => `${JSON.stringify(data, null, 2)}\n`;
