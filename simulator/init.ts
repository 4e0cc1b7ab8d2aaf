import type { SimHost } from '#shared/seed/host/schema';
import { loaderConf } from './boot.ts';
import { ctlKernel } from './commands/ctl-kernel.ts';
import { readFile } from './file-tree.ts';
import { assignPoolGuids, newGuid } from './pool-model.ts';
import { defaultProfile } from './profiles.ts';

const BOOTED_AGO_MS = 3 * 24 * 3600 * 1000;

/**
 * A seed host made ready to run: missing GUIDs assigned, a boot time three days back (so ARC counters and
 * I/O averages have a history), dataset creation times, file entries in one key order, and what a seeded running ctld holds: it read
 * /etc/ctl.conf and configured CTL when it started (ctld.c main: the configuration is applied before it serves),
 * so the state says so from the start — a reload of the same file later leaves the state as it was. The input
 * is not modified.
 */
export function initialState(seed: SimHost, now: number): SimHost {
  const state: SimHost = structuredClone(seed);
  state.bootTimeMs ??= now - BOOTED_AGO_MS;
  state.profile ??= defaultProfile();
  state.kenv ??= loaderConf(state);
  for (const pool of state.pools) assignPoolGuids(pool);
  for (const ds of state.datasets) {
    ds.guid ??= newGuid();
    ds.creation ??= Math.floor((state.bootTimeMs - 30 * 24 * 3600 * 1000) / 1000);
  }
  // file entries in the key order the file tree writes them (content, mode): a file put back as it was is then
  // byte for byte the entry it was in the state file
  const files = (state as { files?: Record<string, { content: string; mode: string }> }).files ?? {};
  for (const [p, f] of Object.entries(files)) {
    const { content, mode, ...rest } = f;
    files[p] = { content, mode, ...rest };
  }
  if (state.ctld?.running && !state.ctld.kernel) {
    ctlKernel(state);
    const loaded = state.ctld.loaded ?? readFile(state, '/etc/ctl.conf');
    if (loaded !== null) state.ctld.loaded = loaded;
  }
  return state;
}
