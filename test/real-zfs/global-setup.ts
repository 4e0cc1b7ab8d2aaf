import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootGuest, type GuestState } from './guest.ts';
import { RESULTS_ENV } from './results.ts';

/**
 * Boots the run's one guest and records it (or why it did not boot) in a state file the test files read: a guest
 * that cannot boot fails every test that needs it, with the reason, instead of skipping them.
 */
export default async function globalSetup() {
  const dir = join(process.cwd(), '.local', `real-zfs-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.env[RESULTS_ENV] = dir;
  const stateFile = join(dir, 'guest.json');
  process.env.HM_REAL_ZFS_GUEST = stateFile;
  let state: GuestState;
  // development: HM_REAL_ZFS_ATTACH names the state file of a guest booted beforehand (e.g. by
  // `npx tsx test/real-zfs/boot-main.ts`), which this run uses instead of booting one (and does not stop)
  const attach = process.env.HM_REAL_ZFS_ATTACH;
  if (attach) {
    writeFileSync(stateFile, readFileSync(attach, 'utf8'));
    return;
  }
  try {
    const g = await bootGuest((line) => process.stdout.write(`${line}\n`));
    (globalThis as { hmRealZfsGuest?: { stop(): Promise<void> } }).hmRealZfsGuest = g;
    state = { port: g.port, keyFile: g.keyFile, version: g.version, accelerator: g.accelerator, pid: g.pid };
  } catch (e) {
    state = { error: (e as Error).message };
    process.stderr.write(`real-zfs guest: ${state.error}\n`);
  }
  writeFileSync(stateFile, JSON.stringify(state));
}
