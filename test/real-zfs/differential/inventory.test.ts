// biome-ignore-all lint/suspicious/noTemplateCurlyInString: call sites are the source text of TypeScript template literals
import { scanCallSites } from './call-sites.ts';
import { FORMS, matchesShape } from './inventory.ts';
import { SEQUENCES } from './sequences.ts';

/**
 * The inventory is complete and every form in it is exercised: a new `zfs`/`zpool` call site in the agent or the
 * host-check kit fails here until it is placed in a form of ./inventory.ts, and a form (or one of its argv shapes)
 * that no differential sequence runs fails here until one does.
 */
const commands = SEQUENCES.flatMap((s) =>
  s.steps.flatMap((step) => ('run' in step ? [step.run] : 'until' in step ? [step.until] : 'pipe' in step ? step.pipe : [])),
);

test('every call site that builds a zfs/zpool argv belongs to exactly one form', () => {
  const placed = FORMS.flatMap((f) => f.sites.map((s) => [s, f.id] as const));
  const unplaced = scanCallSites()
    .map((c) => `${c.file}: ${c.literal}`)
    .filter((key) => placed.filter(([s]) => s === key).length !== 1);
  expect(unplaced).toEqual([]);
});

test('every site the inventory names is still in the source', () => {
  const found = new Set(scanCallSites().map((c) => `${c.file}: ${c.literal}`));
  expect(FORMS.flatMap((f) => f.sites).filter((s) => !found.has(s))).toEqual([]);
});

test('the scan finds the call sites it is meant to (a literal spread over lines, one with spreads)', () => {
  const keys = scanCallSites().map((c) => `${c.file}: ${c.literal}`);
  expect(keys).toContain(
    "agent/drivers/zfs/backup-stream.ts: ['zfs', 'send', '-R', ...streamFlags(encrypted), ...(from ? ['-I', `@${from}`] : []), `${source}@${snap}`]",
  );
  expect(keys.length).toBeGreaterThanOrEqual(40);
});

test.each(FORMS.map((f) => [f.id, f] as const))('form %s: each of its argv shapes is run by a differential sequence', (_id, form) => {
  const unexercised = form.shapes.filter((shape) => !commands.some((argv) => matchesShape(argv, shape)));
  expect(unexercised).toEqual([]);
});

test('shapes match argument by argument, * standing for any text', () => {
  expect(matchesShape(['zfs', 'send', '-R', '-w', 'tank/a@s1'], ['zfs', 'send', '-R', '-w', '*@*'])).toBe(true);
  expect(matchesShape(['zfs', 'send', '-R', '-w', 'tank/a'], ['zfs', 'send', '-R', '-w', '*@*'])).toBe(false);
  expect(matchesShape(['zfs', 'send', '-R', 'tank/a@s1'], ['zfs', 'send', '-R', '-w', '*@*'])).toBe(false);
  expect(matchesShape(['zfs', 'set', 'mountpoint=/a.b', 'x'], ['zfs', 'set', 'mountpoint=/*', '*'])).toBe(true);
});
