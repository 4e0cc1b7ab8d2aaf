import { call, expectEnvelope } from '../helpers/api.ts';

/**
 * Integers in paths and query strings are canonical decimal only: every other spelling of 101 (hex, sign,
 * padding, leading zeros, exponent) is a 400 naming the field, never an alias of record 101.
 */
describe('path and query integers accept canonical decimal only', () => {
  const spellings = ['0x65', '+101', '%20101', '101%20', '00101', '1e2', '101.0', '0b1100101', '-101'];

  test.each(spellings)('GET /jail/%s is 400 naming path.ctid', async (s) => {
    const res = await call('GET', `/jail/${s}`);
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toMatch(/^path\.ctid: /);
  });

  test.each(spellings)('PUT /jail/%s/hardware/cpu acts on nothing (400 naming path.ctid)', async (s) => {
    const res = await call('PUT', `/jail/${s}/hardware/cpu`, { body: { cores: 1 } });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toMatch(/^path\.ctid: /);
  });

  test.each(['1e2', '+5', '05', '%205', '0x10', '5.0'])('GET /tasks?size=%s is 400 naming query.size', async (s) => {
    const res = await call('GET', `/tasks?size=${s}`);
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toMatch(/^query\.size: /);
  });

  test('the canonical spellings are accepted', async () => {
    expect((await call('GET', '/jail/101')).body.message).not.toBe('validation_failed');
    const page = await call('GET', '/tasks?size=10&page=1');
    expectEnvelope(page, 200);
    // 0 is canonical: refused by the range check, not by the spelling rule
    const zero = await call('GET', '/tasks?page=0');
    expectEnvelope(zero, 400, 'validation_failed');
    expect(zero.body.error).toMatch(/query\.page: must be >= 1/);
  });
});

describe("non-integers and negatives keep the validator's own message", () => {
  test('abc is "must be integer", -1 is out of range, -0 is not an alias of 0', async () => {
    const res = await call('GET', '/tasks?size=abc&page=-1');
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('query.size: must be integer');
    expect(res.body.error).toContain('query.page: must be >= 1');
    const negZero = await call('GET', '/jail/-0');
    expectEnvelope(negZero, 400, 'validation_failed');
    expect(negZero.body.error).toMatch(/^path\.ctid: must be an integer in plain decimal/);
  });
});
