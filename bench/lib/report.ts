/**
 * One line of the summary table. `ok`: true/false when the number has a target, null when it is context
 * only (or could not be measured: then `value` says why).
 */
export interface Row {
  section: string;
  what: string;
  value: string;
  target?: string;
  ok?: boolean | null;
  note?: string;
}

/** A measurement: one file under bench/, run by bench/run.ts or alone (`tsx bench/<name>.ts`). */
export interface Bench {
  name: string;
  run(): Promise<Row[]>;
}

const mark = (ok: boolean | null | undefined) => (ok === true ? 'ok' : ok === false ? 'MISSED' : '');

/** A plain text table; widths from the content, notes after the table so it stays narrow. */
export function table(rows: Row[]): string {
  const head = ['section', 'measurement', 'value', 'target', ''];
  const cells = rows.map((r) => [r.section, r.what, r.value, r.target ?? '', mark(r.ok)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => (i === 2 ? x.padStart(widths[i]) : x.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  ')];
  let last = '';
  for (const c of cells) {
    out.push(line([c[0] === last ? '' : c[0], ...c.slice(1)]));
    last = c[0];
  }
  const notes = rows.filter((r) => r.note).map((r) => `  [${r.section}] ${r.what}: ${r.note}`);
  if (notes.length) out.push('', 'notes:', ...notes);
  return out.join('\n');
}

/** Lets every bench file run alone: `tsx bench/<name>.ts` prints its own rows. */
export async function runAlone(meta: ImportMeta, bench: Bench): Promise<void> {
  const { pathToFileURL } = await import('node:url');
  if (!process.argv[1] || meta.url !== pathToFileURL(process.argv[1]).href) return;
  const rows = await bench.run();
  console.log(table(rows));
  process.exit(0);
}
