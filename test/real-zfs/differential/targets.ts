import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatorExecutor } from '#simulator/executor';
import { LOGIN_PATH, type ProfileId } from '#simulator/profiles';
import type { SimHost } from '#shared/seed/host/schema';
import { WORK, type Result, type Target } from './sequence.ts';

/**
 * The two kinds of host a sequence runs on. The simulator starts each sequence from a host with no pools and an
 * empty work directory, on the given profile, with a login shell's PATH (the guest is reached over SSH too); its
 * clock advances a second per command.
 */
export function simulatorTarget(profile: ProfileId): Target & { cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'hm-diff-'));
  let t = Date.UTC(2026, 0, 5, 12, 0, 0);
  const seed = {
    hostname: 'diff.test',
    profile,
    cpus: 2,
    memoryBytes: 2 ** 31,
    disks: [],
    pools: [],
    datasets: [],
    sysctls: [],
    dirs: [WORK, '/root'],
  } as unknown as SimHost;
  const exec = new SimulatorExecutor({ statePath: join(dir, 'state.json'), seed, now: () => (t += 1000), resilverMs: 1, path: LOGIN_PATH });
  const run = async (argv: string[], stdin?: string): Promise<Result> => {
    const r = await exec.run(argv, stdin === undefined ? {} : { stdin });
    return { code: r.code, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    run,
    async pipe(send, recv) {
      const s = await run(send);
      const r = await run(recv, s.stdout);
      return [{ ...s, stdout: '' }, r];
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** POSIX sh quoting of one argument. */
export const shq = (a: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
const line = (argv: string[]) => argv.map(shq).join(' ');

/**
 * The guest as a target, given a way to run one shell command line on it (over SSH). A stream is kept in a file
 * between the two sides, so each side's exit code and stderr are its own; stdin is fed by printf, never a tty.
 */
export function guestTarget(sh: (script: string) => Promise<Result>): Target & { reset(): Promise<void> } {
  const stream = '/var/tmp/hm-diff.stream';
  return {
    run: (argv, stdin) => sh(stdin === undefined ? line(argv) : `printf '%s' ${shq(stdin)} | ${line(argv)}`),
    async pipe(send, recv) {
      const s = await sh(`${line(send)} > ${stream}`);
      const r = await sh(`${line(recv)} < ${stream}`);
      return [s, r];
    },
    /** every pool destroyed, the work directory emptied: the state each sequence starts from */
    async reset() {
      const r = await sh(
        `for p in $(zpool list -H -o name); do zpool destroy -f "$p" || exit 1; done; rm -rf ${WORK} ${stream} && mkdir -p ${WORK} && zpool list -H -o name | wc -l`,
      );
      if (r.code !== 0 || r.stdout.trim() !== '0') throw new Error(`guest reset failed (${r.code}): ${r.stdout}${r.stderr}`);
    },
  };
}
