import type { SimHost } from '#shared/seed/host/schema';
import { loaderConf } from './boot.ts';
import { assignPoolGuids, newGuid } from './pool-model.ts';
import { defaultProfile } from './profiles.ts';

const BOOTED_AGO_MS = 3 * 24 * 3600 * 1000;

/**
 * A seed host made ready to run: missing GUIDs assigned, a boot time three days back (so ARC counters and
 * I/O averages have a history), dataset creation times. The input is not modified.
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
  return state;
}
