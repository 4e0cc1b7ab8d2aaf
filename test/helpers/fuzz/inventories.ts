import fc from 'fast-check';
import { MAX_HOST_CPUS } from '#domain/inventory';
import { nested } from './values.ts';

/**
 * What an agent may report, at and past its bounds: the fixed head (`cpus` up to the CPU bound and far beyond it,
 * names at their length limits) and capability sections nested right up to the JSON depth bound and past it,
 * with unstorable text (U+0000, a lone surrogate) at the deepest level. A section the schema does not know passes
 * it unchecked, so only the storable-text and depth rules stand between it and the store; a known one (jails) with
 * a field it does not declare is refused by the schema.
 */
const DEEPEST_ALLOWED_BELOW_INVENTORY = 62; // body (0) → inventory (1) → a section (2): objects at depths 2..63

const cpus = fc.constantFrom<unknown>(0, 1, MAX_HOST_CPUS, MAX_HOST_CPUS + 1, 2e8, 3e9, 2 ** 53, -1, 1.5);
const text = (max: number) => fc.constantFrom('h', 'h'.repeat(max), 'h'.repeat(max + 1), 'a\u0000b', 'x\ud800');
const leaf = fc.constantFrom<unknown>('fine', 'a\u0000b', 'x\udc00', 1, null);
const depth = fc.constantFrom(1, DEEPEST_ALLOWED_BELOW_INVENTORY - 1, DEEPEST_ALLOWED_BELOW_INVENTORY, DEEPEST_ALLOWED_BELOW_INVENTORY + 1, 100, 1000);

export const inventoryAtBounds: fc.Arbitrary<unknown> = fc.record({
  hostname: text(255),
  os: fc.constantFrom('FreeBSD 14.3-RELEASE', 'o'.repeat(255), 'o'.repeat(256)),
  cpus,
  memoryBytes: fc.constantFrom<unknown>(0, 2 ** 53 - 1, 2 ** 53 + 2, -1),
  // an unknown section at the depth bounds; and a known one (jails) whose entries hide a deep value
  extra: fc.tuple(depth, leaf).map(([d, v]) => nested(d, v)),
  jails: fc.tuple(depth, leaf).map(([d, v]) => [{ ctid: 1, name: 'j', state: 'stopped', notes: nested(Math.max(0, d - 2), v) }]),
});

/** The agent inventory route's bodies at the bounds: `{inventory}`, sometimes with an `asOf`. */
export const inventoryBodies: fc.Arbitrary<string> = fc
  .tuple(inventoryAtBounds, fc.constantFrom<unknown>(undefined, '2026-01-01T00:00:00.000Z', 'yesterday', 1))
  .map(([inventory, asOf]) => JSON.stringify(asOf === undefined ? { inventory } : { inventory, asOf }));
