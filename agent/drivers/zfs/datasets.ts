import { runChecked, type Executor } from '../../executors/executor.ts';
import type { DatasetInventory } from '#shared/agent-api/inventory';
import { parseSize } from './numbers.ts';

/**
 * zfs list: rows of `zfs list -H[p] -o <columns>` (TAB-separated) by column name. Other zfs subcommands
 * (snapshot, send, recv) live with the capabilities that use them.
 */
export function parseZfsList(stdout: string, columns: string[]): Record<string, string>[] {
  return stdout
    .split('\n')
    .filter((l) => l.includes('\t') || (columns.length === 1 && l.trim()))
    .map((line) => {
      const cells = line.split('\t');
      return Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? '']));
    });
}

const DATASET_COLUMNS = ['name', 'type', 'used', 'avail', 'refer', 'volsize'];

/** Filesystems and zvols (and snapshots when asked) with their space, as the inventory reports them. */
export async function listDatasets(exec: Executor, types: DatasetInventory['type'][] = ['filesystem', 'volume']): Promise<DatasetInventory[]> {
  const out = await runChecked(exec, ['zfs', 'list', '-Hp', '-o', DATASET_COLUMNS.join(','), '-t', types.join(',')]);
  return parseZfsList(out, DATASET_COLUMNS).map((r) => {
    const d: DatasetInventory = {
      name: r.name,
      type: r.type as DatasetInventory['type'],
      used: parseSize(r.used) ?? 0,
      available: parseSize(r.avail) ?? 0,
    };
    const volsize = parseSize(r.volsize);
    if (d.type === 'volume' && volsize !== null) d.volsize = volsize;
    return d;
  });
}
