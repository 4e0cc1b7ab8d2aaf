/**
 * A differential sequence: commands run in order on a clean host (no pools, an empty /var/tmp/zd), the same on
 * the simulator and on the real OpenZFS guest, their outputs compared after normalising (normalise.ts).
 */
export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export type Step =
  /** a command whose stdout, stderr and exit code are compared; `stdin` is fed to it */
  | { run: string[]; stdin?: string; unordered?: boolean; numbers?: boolean }
  /** `send | recv`: the sender's stderr and exit code and the receiver's whole result are compared */
  | { pipe: [string[], string[]] }
  /** preparation (vdev files, key files, data written into a filesystem): must succeed on both, not compared */
  | { setup: string[]; stdin?: string }
  /** a command that takes time on a real host (a resilver): repeated until its stdout matches, then compared */
  | { until: string[]; match: RegExp; unordered?: boolean };

export interface Sequence {
  id: string;
  /** what it checks, in a few words */
  title: string;
  steps: Step[];
}

/** Where a sequence runs: the simulator on one profile, or the guest. */
export interface Target {
  run(argv: string[], stdin?: string): Promise<Result>;
  pipe(send: string[], recv: string[]): Promise<[Result, Result]>;
}

/** The directory every sequence keeps its vdev files and keys in. */
export const WORK = '/var/tmp/zd';

/** The compared results of one sequence, one entry per compared step (setup steps give null). */
export async function runSequence(seq: Sequence, target: Target): Promise<(Result | null)[]> {
  const out: (Result | null)[] = [];
  for (const [i, step] of seq.steps.entries()) {
    if ('setup' in step) {
      const r = await target.run(step.setup, step.stdin);
      if (r.code !== 0) throw new Error(`${seq.id} step ${i} setup ${step.setup.join(' ')} failed (${r.code}): ${r.stderr}`);
      out.push(null);
    } else if ('pipe' in step) {
      const [s, r] = await target.pipe(step.pipe[0], step.pipe[1]);
      out.push({ code: s.code * 1000 + r.code, stdout: r.stdout, stderr: `${s.stderr}--- recv ---\n${r.stderr}` });
    } else if ('until' in step) {
      let r = await target.run(step.until);
      for (let n = 0; n < 60 && !step.match.test(r.stdout); n++) {
        await new Promise((res) => setTimeout(res, 500));
        r = await target.run(step.until);
      }
      out.push(r);
    } else {
      const r = await target.run(step.run, step.stdin);
      out.push(r);
    }
  }
  return out;
}
