import spec from '#spec/cluster/notes-create';

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
