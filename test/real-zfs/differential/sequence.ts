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
  /**
   * Runs consecutive `run`/`setup`/`pipe` steps in one go, each as `run`/`pipe` would, and returns their results in
   * order (a pipe's as [send, recv]): the guest runs them as one script, saving a round trip per command.
   */
  batch?(steps: Exclude<Step, { until: string[] }>[]): Promise<(Result | [Result, Result])[]>;
}

/** The directory every sequence keeps its vdev files and keys in. */
export const WORK = '/var/tmp/zd';

/** The compared results of one sequence, one entry per compared step (setup steps give null). */
export async function runSequence(seq: Sequence, target: Target): Promise<(Result | null)[]> {
  const out: (Result | null)[] = [];
  const steps = seq.steps;
  for (let i = 0; i < steps.length; ) {
    const step = steps[i];
    if ('until' in step) {
      let r = await target.run(step.until);
      for (let n = 0; n < 60 && !step.match.test(r.stdout); n++) {
        await new Promise((res) => setTimeout(res, 500));
        r = await target.run(step.until);
      }
      out.push(r);
      i++;
      continue;
    }
    // the steps up to the next `until` (which must see the time pass between its tries) run together
    let end = i;
    while (end < steps.length && !('until' in steps[end])) end++;
    const chunk = steps.slice(i, end) as Exclude<Step, { until: string[] }>[];
    const results = target.batch ? await target.batch(chunk) : await oneByOne(target, chunk);
    for (const [k, c] of chunk.entries()) {
      const r = results[k];
      if ('setup' in c) {
        const one = r as Result;
        if (one.code !== 0) throw new Error(`${seq.id} step ${i + k} setup ${c.setup.join(' ')} failed (${one.code}): ${one.stderr}`);
        out.push(null);
      } else if ('pipe' in c) {
        const [snd, rcv] = r as [Result, Result];
        out.push({ code: snd.code * 1000 + rcv.code, stdout: rcv.stdout, stderr: `${snd.stderr}--- recv ---\n${rcv.stderr}` });
      } else out.push(r as Result);
    }
    i = end;
  }
  return out;
}

async function oneByOne(target: Target, steps: Exclude<Step, { until: string[] }>[]): Promise<(Result | [Result, Result])[]> {
  const out: (Result | [Result, Result])[] = [];
  for (const step of steps) {
    if ('pipe' in step) out.push(await target.pipe(step.pipe[0], step.pipe[1]));
    else {
      const r = await target.run('setup' in step ? step.setup : step.run, step.stdin);
      out.push(r);
      // a failed setup ends the sequence (runSequence throws); nothing after it runs
      if ('setup' in step && r.code !== 0) break;
    }
  }
  return out;
}
