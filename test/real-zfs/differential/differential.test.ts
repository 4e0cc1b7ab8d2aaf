import { PROFILE_IDS, type ProfileId } from '#simulator/profiles';
import { type Guest, guest } from '../guest.ts';
import { recordSequences } from '../results.ts';
import { describe as show, differences, recordedDifferences, type Difference } from './compare.ts';
import { runSequence, type Result } from './sequence.ts';
import { SEQUENCES } from './sequences.ts';
import { guestTarget, simulatorTarget } from './targets.ts';

/**
 * Each sequence runs on the real OpenZFS guest (from no pools and an empty work directory) and on the simulator
 * with each FreeBSD profile; every compared step must give the same normalised stdout, stderr and exit code, or be
 * a difference simulator/README.md records. The last test checks the record is exactly what was seen, and the
 * run's closing line counts the sequences and the differences not explained.
 */
let g: Guest;
const seen = new Map<string, Difference>();
const recorded = recordedDifferences();
let ran = 0;

beforeAll(async () => {
  g = await guest();
});
const onTheGuest = () =>
  guestTarget(async (script) => {
    const r = await g.run(['sh', '-c', script]);
    return { code: r.code, stdout: r.stdout, stderr: r.stderr };
  });
afterAll(async () => {
  if (!g) return;
  // the last sequence's pools go too: a later file's `zpool create tank` refuses a /tank that one left mounted
  await onTheGuest().reset();
  await g.close();
});

describe.each(SEQUENCES.map((s) => [s.id, s] as const))('%s', (_id, seq) => {
  test(seq.title, async () => {
    const target = onTheGuest();
    // the guest works in its own process while the simulator works in this one: the two sides run at once
    const onGuest = target.reset().then(() => runSequence(seq, target));
    const simulated = {} as Record<ProfileId, (Result | null)[]>;
    try {
      for (const p of PROFILE_IDS) {
        const sim = simulatorTarget(p);
        try {
          simulated[p] = await runSequence(seq, sim);
        } finally {
          sim.cleanup();
        }
      }
    } finally {
      // a simulator failure still waits for the guest, so the next sequence's reset never meets this one's commands
      await onGuest.catch(() => undefined);
    }
    const real = await onGuest;
    ran++;
    const found = differences(seq, real, simulated);
    for (const d of found) seen.set(d.key, d);
    const notRecorded = found.filter((d) => !recorded.explained.has(d.key) && !recorded.unexplained.has(d.key));
    expect(notRecorded.map(show)).toEqual([]);
  });
});

test('simulator/README.md records exactly the differences seen, and the run reports the unexplained ones', () => {
  const all = [...recorded.explained, ...recorded.unexplained].sort();
  recordSequences('differential', { sequences: ran, unexplained: [...seen.keys()].filter((k) => !recorded.explained.has(k)).length });
  expect(ran).toBe(SEQUENCES.length);
  expect(all).toEqual([...seen.keys()].sort());
});
