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
export function guestTarget(sh: (script: string) => Promise<Result>): Target & { reset(): Promise<void>; batch: NonNullable<Target['batch']> } {
  const stream = '/var/tmp/hm-diff.stream';
  return {
    run: (argv, stdin) => sh(stdin === undefined ? line(argv) : `printf '%s' ${shq(stdin)} | ${line(argv)}`),
    async pipe(send, recv) {
      const s = await sh(`${line(send)} > ${stream}`);
      const r = await sh(`${line(recv)} < ${stream}`);
      return [s, r];
    },
    /**
     * The steps as one script: each command as `run`/`pipe` runs it (stdin from printf, else /dev/null), its exit
     * code and its output and error files printed base64-encoded after a marker line, so one round trip carries
     * a whole sequence and the outputs come back byte for byte.
     */
    async batch(steps) {
      const dir = '/var/tmp/hm-diff.batch';
      const body = steps.map((step, i) => {
        const cmd = (argv: string[], stdin?: string) => (stdin === undefined ? `${line(argv)} </dev/null` : `printf '%s' ${shq(stdin)} | ${line(argv)}`);
        const run =
          'pipe' in step
            ? `${line(step.pipe[0])} </dev/null >${stream} 2>${dir}/e1; c1=$?; ${line(step.pipe[1])} <${stream} >${dir}/o 2>${dir}/e2; c2=$?`
            : `: >${dir}/e1; c1=0; ${cmd('setup' in step ? step.setup : step.run, step.stdin)} >${dir}/o 2>${dir}/e2; c2=$?`;
        return `${run}\necho "@@@ ${i} $c1 $c2"; for f in o e1 e2; do base64 -w0 ${dir}/$f; echo; done`;
      });
      const r = await sh(`rm -rf ${dir} && mkdir -p ${dir} || exit 99\n${body.join('\n')}\nrm -rf ${dir}`);
      if (r.code !== 0) throw new Error(`batch on the guest failed (${r.code}): ${r.stderr}`);
      const lines = r.stdout.split('\n');
      const b64 = (t: string) => Buffer.from(t, 'base64').toString('utf8');
      return steps.map((step, i) => {
        const at = lines.indexOf(lines.find((l) => l.startsWith(`@@@ ${i} `)) ?? '@@@ missing');
        if (at < 0) throw new Error(`batch on the guest printed no result for step ${i}: ${r.stdout.slice(-400)}${r.stderr}`);
        const [, , c1, c2] = lines[at].split(' ');
        const [o, e1, e2] = [lines[at + 1], lines[at + 2], lines[at + 3]].map(b64);
        const recv: Result = { code: Number(c2), stdout: o, stderr: e2 };
        return 'pipe' in step ? ([{ code: Number(c1), stdout: '', stderr: e1 }, recv] as [Result, Result]) : recv;
      });
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
