/**
 * What a real-OpenZFS run records for its closing line (./summary-reporter.cjs): each differential suite writes one
 * JSON file into the run's results directory with how many sequences it ran against both the simulator and the
 * guest, and how many differences it could not explain.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const RESULTS_ENV = 'HM_REAL_ZFS_RESULTS';

export interface SequenceCounts {
  sequences: number;
  unexplained: number;
}

/** Records a differential suite's counts under name (one file per suite; a second call replaces the first). */
export function recordSequences(name: string, counts: SequenceCounts): void {
  const dir = process.env[RESULTS_ENV];
  if (!dir) throw new Error(`${RESULTS_ENV} is not set: run the real-OpenZFS suites with \`npm run test:real-zfs\``);
  writeFileSync(join(dir, `sequences-${name.replace(/[^A-Za-z0-9_-]/g, '_')}.json`), JSON.stringify(counts));
}

/** The sum of every suite's counts in dir. */
export function sequenceTotals(dir: string): SequenceCounts {
  const total = { sequences: 0, unexplained: 0 };
  for (const f of readdirSync(dir).filter((n) => /^sequences-.*\.json$/.test(n))) {
    const c = JSON.parse(readFileSync(join(dir, f), 'utf8')) as SequenceCounts;
    total.sequences += c.sequences;
    total.unexplained += c.unexplained;
  }
  return total;
}
