import { call, expectEnvelope, testDb } from '../helpers/api.ts';

/**
 * 413 for every operation whose spec lists it (E21/E23 have their own): the shared body-limit middleware
 * answers before the body is parsed, validated or acted on, so no task is created.
 */
const ROUTES: Array<[op: string, method: string, path: string]> = [
  ['E3', 'PUT', '/jail/101/options/lifecycle-hooks'],
  ['E4', 'PUT', '/jail/101/hardware/cpu'],
  ['E20', 'POST', '/jail/101/migrations'],
  ['E5', 'PUT', '/vm/202/options/qemu-guest-agent'],
  ['E6', 'PUT', '/vm/202/options/shutdown-wait-time'],
  ['E17', 'PUT', '/vm/202/options/cloud-init'],
  ['E11', 'PUT', '/system/tunables'],
];

const tooLarge = JSON.stringify({ padding: 'x'.repeat(1024 * 1024 + 1) });
const taskCount = async () =>
  Number(
    (
      await testDb()
        .selectFrom('tasks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('413 before anything is parsed or written', () => {
  test.each(ROUTES)('%s %s %s', async (_op, method, path) => {
    const before = await taskCount();
    const res = await call(method, path, { rawBody: tooLarge });
    expectEnvelope(res, 413, 'payload_too_large');
    expect(res.body.data).toBeNull();
    expect(res.body.error).toMatch(/limit here is 1048576 bytes/);
    expect(await taskCount()).toBe(before);
  });

  test('a body just under the limit gets past the limit (to validation)', async () => {
    const res = await call('PUT', '/system/tunables', { rawBody: JSON.stringify({ padding: 'x'.repeat(1024 * 1024 - 20) }) });
    expectEnvelope(res, 400, 'validation_failed');
  });
});
