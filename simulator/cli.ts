/**
 * Runs one command against a simulated host, like the real binary would on FreeBSD:
 *
 *   HM_SIM_STATE=/path/state.json tsx simulator/cli.ts zpool list -Hp
 *
 * prints the command's stdout/stderr and exits with its code. stdin (when not a terminal) is passed on.
 * HM_SIM_SEED names a JSON file to create the state from when it does not exist yet: either one host, or a
 * seed file with `hosts` keyed by node id (HM_SIM_NODE picks one; a single host is taken as is).
 * Programs are found through login.conf's PATH (an SSH session's), or HM_SIM_PATH.
 * This lets a real sshd front a simulated host: `ssh host env HM_SIM_STATE=… tsx …/cli.ts zfs recv …`.
 */
import { readFileSync } from 'node:fs';
import { setting } from '#shared/config/read';
import { LOGIN_PATH } from './profiles.ts';
import { HostSimulator } from './simulator.ts';
import { loadSeedHost } from './seed.ts';

async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function main(): Promise<number> {
  const statePath = setting('HM_SIM_STATE');
  if (!statePath) {
    process.stderr.write('simulator: set HM_SIM_STATE to the state file of the simulated host\n');
    return 64;
  }
  const seedPath = setting('HM_SIM_SEED');
  const seed = seedPath ? loadSeedHost(JSON.parse(readFileSync(seedPath, 'utf8')), setting('HM_SIM_NODE')) : undefined;
  // what a login shell (an SSH session) finds: login.conf's default PATH, unless HM_SIM_PATH says otherwise
  const sim = new HostSimulator({ statePath, seed, path: setting('HM_SIM_PATH') ?? LOGIN_PATH });
  const res = await sim.run(process.argv.slice(2), await readStdin());
  await new Promise<void>((r) => process.stdout.write(res.stdout, () => r()));
  await new Promise<void>((r) => process.stderr.write(res.stderr, () => r()));
  return res.code;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`simulator: ${(e as Error).stack ?? e}\n`);
    process.exit(70);
  },
);
