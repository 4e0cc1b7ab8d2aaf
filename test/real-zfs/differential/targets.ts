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
     * The steps as one script: each command as `run`/`pipe` runs it (stdin from printf, else /dev/null) with its
     * output and error in files of its own, and its exit codes echoed after a marker line; at the end one `stat`
     * prints every file's size and one `cat | base64` carries them all, so one round trip returns a whole sequence
     * byte for byte. Under TCG a process costs ≈ 40 ms, as much as a third of a cheap `zfs` step: the script starts
     * three per batch, not three per step.
     */
    async batch(steps) {
      const dir = '/var/tmp/hm-diff.batch';
      const files = steps.flatMap((_, i) => [`${i}.o`, `${i}.e1`, `${i}.e2`]);
      const body = steps.map((step, i) => {
        const [o, e1, e2] = [`${dir}/${i}.o`, `${dir}/${i}.e1`, `${dir}/${i}.e2`];
        const cmd = (argv: string[], stdin?: string) => (stdin === undefined ? `${line(argv)} </dev/null` : `printf '%s' ${shq(stdin)} | ${line(argv)}`);
        const run =
          'pipe' in step
            ? `${line(step.pipe[0])} </dev/null >${stream} 2>${e1}; c1=$?; ${line(step.pipe[1])} <${stream} >${o} 2>${e2}; c2=$?`
            : `: >${e1}; c1=0; ${cmd('setup' in step ? step.setup : step.run, step.stdin)} >${o} 2>${e2}; c2=$?`;
        return `${run}\necho "@@@ ${i} $c1 $c2"`;
      });
      const collect = `cd ${dir} && echo "@@@ sizes" $(stat -c %s ${files.join(' ')}) && cat ${files.join(' ')} | base64 -w0 && echo`;
      const r = await sh(`rm -rf ${dir} && mkdir -p ${dir} || exit 99\n${body.join('\n')}\n${collect}\ncode=$?; cd / && rm -rf ${dir}; exit $code`);
      if (r.code !== 0) throw new Error(`batch on the guest failed (${r.code}): ${r.stderr}`);
      const lines = r.stdout.split('\n');
      const at = lines.findIndex((l) => l.startsWith('@@@ sizes '));
      const sizes = at < 0 ? [] : lines[at].slice('@@@ sizes '.length).split(' ').map(Number);
      if (sizes.length !== files.length) throw new Error(`batch on the guest printed no sizes: ${r.stdout.slice(-400)}${r.stderr}`);
      const data = Buffer.from(lines[at + 1], 'base64');
      let offset = 0;
      const contents = sizes.map((n) => data.subarray(offset, (offset += n)).toString('utf8'));
      return steps.map((step, i) => {
        const mark = lines.find((l) => l.startsWith(`@@@ ${i} `));
        if (!mark) throw new Error(`batch on the guest printed no result for step ${i}: ${r.stdout.slice(-400)}${r.stderr}`);
        const [, , c1, c2] = mark.split(' ');
        const [o, e1, e2] = contents.slice(3 * i, 3 * i + 3);
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
