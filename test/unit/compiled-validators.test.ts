import spec from '#spec/cluster/notes-create';
import inventorySpec from '#spec/agent/inventory';

/**
 * The build's standalone validators import ajv's runtime helpers (ucs2length for string lengths); the generated
 * import must work whichever way the module is loaded — by Node as ESM (the functions) and through a CommonJS
 * transpiler (jest, calling handlers in-process). It once threw "func2 is not a function" under jest, a 500 on
 * every in-process request that reached a length check.
 */
describe('compiled validators load their runtime helpers under jest', () => {
  test('a body with a string length check validates, and refuses a title over its maximum', () => {
    expect(spec.body).not.toBeNull();
    expect(spec.body!({ title: 'a note', content: 'text' })).toBe(true);
    expect(spec.body!({ title: '🐚'.repeat(201) })).toBe(false);
    expect(spec.body!.errors?.[0]).toMatchObject({ instancePath: '/title', keyword: 'maxLength' });
    // ucs2length counts code points: 200 emoji (400 UTF-16 units) are 200 characters, within the maximum
    expect(spec.body!({ title: '🐚'.repeat(200) })).toBe(true);
  });
});

/**
 * The build compiles nested object schemas as references (`$defs`, one function each) and leaves schemaPath
 * empty (scripts/build/compile-specs.ts): a deep error still names its field by the full instancePath, as the
 * 400 reports it, and defaults still apply inside referenced objects.
 */
describe('validators with nested objects compiled as references', () => {
  const vdev = (depth: number, type = 'mirror'): Record<string, unknown> => ({
    name: 'da0',
    type,
    state: 'ONLINE',
    ...(depth ? { children: [vdev(depth - 1, type)] } : {}),
  });
  const inventory = (v: Record<string, unknown>) => ({
    inventory: { hostname: 'h', pools: [{ name: 'tank', guid: '1', health: 'ONLINE', size: 1, allocated: 0, free: 1, vdevs: [v] }] },
  });

  test('an error four levels down the vdev tree names its path; a valid tree is not refused', () => {
    const body = inventorySpec.body!;
    const bad = vdev(4);
    let inner = bad;
    for (let i = 0; i < 4; i++) inner = (inner.children as Record<string, unknown>[])[0]!;
    inner.type = 'raidz9';
    inner.extra = 1;
    expect(body(inventory(bad))).toBe(false);
    expect(body.errors?.map((e) => [e.instancePath, e.keyword])).toEqual(
      expect.arrayContaining([
        ['/inventory/pools/0/vdevs/0/children/0/children/0/children/0/children/0', 'additionalProperties'],
        ['/inventory/pools/0/vdevs/0/children/0/children/0/children/0/children/0/type', 'enum'],
      ]),
    );
    // the same tree without the planted faults: nothing under vdevs is refused (the inventory's other required fields are)
    body(inventory(vdev(4)));
    expect((body.errors ?? []).filter((e) => e.instancePath.includes('/vdevs'))).toEqual([]);
    expect(body.errors?.length).toBeGreaterThan(0);
  });
});
