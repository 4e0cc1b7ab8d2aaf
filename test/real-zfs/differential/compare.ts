import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROFILE_IDS, type ProfileId } from '#simulator/profiles';
import { normalise } from './normalise.ts';
import type { Result, Sequence } from './sequence.ts';

/**
 * A difference is a compared step whose normalised result on a simulator profile is not the guest's. Its key is
 * `<sequence>#<step>` when both profiles differ, `<sequence>#<step>@<profile>` when one does.
 */
export interface Difference {
  key: string;
  real: Result;
  simulated: Partial<Record<ProfileId, Result>>;
}

const same = (a: Result, b: Result) => a.code === b.code && a.stdout === b.stdout && a.stderr === b.stderr;

export function differences(seq: Sequence, real: (Result | null)[], simulated: Record<ProfileId, (Result | null)[]>): Difference[] {
  const out: Difference[] = [];
  for (const [i, step] of seq.steps.entries()) {
    const r = real[i];
    if (!r) continue;
    const opts = 'setup' in step || 'pipe' in step ? {} : { unordered: step.unordered, numbers: 'numbers' in step ? step.numbers : false };
    const want = normalise(r, opts);
    const differing: Partial<Record<ProfileId, Result>> = {};
    for (const p of PROFILE_IDS) {
      const s = simulated[p][i];
      const got = s ? normalise(s, opts) : { code: -1, stdout: '', stderr: '(no result)' };
      if (!same(want, got)) differing[p] = got;
    }
    const ps = Object.keys(differing) as ProfileId[];
    if (!ps.length) continue;
    out.push({ key: ps.length === PROFILE_IDS.length ? `${seq.id}#${i}` : `${seq.id}#${i}@${ps[0]}`, real: want, simulated: differing });
  }
  return out;
}

export function describe(d: Difference): string {
  const show = (r: Result) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
  return `${d.key}\n=== real OpenZFS: ${show(d.real)}\n${Object.entries(d.simulated)
    .map(([p, r]) => `=== simulator ${p}: ${show(r)}`)
    .join('\n')}`;
}

/**
 * The differences simulator/README.md records, by key: its section "Differences from real OpenZFS" lists each as
 * a line starting with `- \`<key>\`` and saying why (a version or platform difference, with the OpenZFS source
 * that shows it) — or, under "Not explained yet", what is known of it.
 */
export interface Recorded {
  explained: Set<string>;
  unexplained: Set<string>;
}

export function recordedDifferences(readme = join(__dirname, '..', '..', '..', 'simulator', 'README.md')): Recorded {
  const text = readFileSync(readme, 'utf8');
  const start = text.indexOf('\n## Differences from real OpenZFS');
  if (start < 0) throw new Error(`${readme} has no "## Differences from real OpenZFS" section`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const split = section.indexOf('\n### Not explained yet');
  const keys = (s: string) => new Set([...s.matchAll(/^- `([a-z0-9-]+#\d+(?:@[a-z0-9.-]+)?)`/gm)].map((m) => m[1]));
  return split < 0
    ? { explained: keys(section), unexplained: new Set() }
    : { explained: keys(section.slice(0, split)), unexplained: keys(section.slice(split)) };
}
