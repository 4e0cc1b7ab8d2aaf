import type { Executor } from '../executors/executor.ts';
import { listDir, readOrNull, removeFiles, writeText } from '../drivers/host-files.ts';

/**
 * A migration's journal on the source host: where it got to, so that a migration cut off by an agent crash
 * is finished or undone at the next start (./jail-migration-recovery.ts). Written before each step that
 * changes a host; removed when the migration ended either way.
 */
const JOURNAL_DIR = '/var/db/hostmgr/jail-migrations';

export type MigrationPhase =
  | 'prepare'
  /** the target may hold a partial dataset from here on */
  | 'initial-send'
  | 'stopped'
  | 'final-send'
  | 'copied-config'
  | 'starting-on-target'
  /** the jail runs (or is ready) on the target: from here on the migration is finished, never undone */
  | 'committed';

export interface MigrationJournal {
  taskId: number;
  attempt: number | null;
  ctid: number;
  name: string;
  dataset: string;
  /** with the host keys pinned at start, so that recovery after a crash connects only to the same host */
  target: { nodeId: string; address: string; hostKeys?: string[] };
  wasRunning: boolean;
  phase: MigrationPhase;
  snapshots: string[];
  /** files written on the target (conf, hook scripts, limits) */
  targetFiles: string[];
  sourceFiles: { conf: string; dir: string };
}

const file = (ctid: number) => `${JOURNAL_DIR}/${ctid}.json`;

export async function writeJournal(exec: Executor, j: MigrationJournal): Promise<void> {
  await writeText(exec, file(j.ctid), `${JSON.stringify(j, null, 2)}\n`);
}

export async function removeJournal(exec: Executor, ctid: number): Promise<void> {
  await removeFiles(exec, [file(ctid)]);
}

export async function listJournals(exec: Executor): Promise<MigrationJournal[]> {
  const out: MigrationJournal[] = [];
  for (const name of await listDir(exec, JOURNAL_DIR)) {
    if (!name.endsWith('.json')) continue;
    const text = await readOrNull(exec, `${JOURNAL_DIR}/${name}`);
    if (text) out.push(JSON.parse(text) as MigrationJournal);
  }
  return out;
}
