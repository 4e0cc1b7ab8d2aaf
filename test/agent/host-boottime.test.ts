import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testHost, waitUntil } from '../helpers/agent.ts';

/**
 * The host's boot time: the agent reads `kern.boottime` with its identity sysctls and reports it as
 * `inventory.bootTime` (Unix seconds), and GET /api/cluster/nodes/{id} returns it, so the console can show how
 * long the host (not the agent) has been up.
 */
test('the agent reports its host’s kern.boottime and the node read returns it', async () => {
  const bootTimeMs = Date.UTC(2026, 10, 4, 3, 5, 6, 789);
  const agent = await startTestAgent({ host: testHost({ bootTimeMs }) });
  await agent.ready();
  const view = await waitUntil(`node ${agent.nodeId} with its inventory`, async () => {
    const n = (await call('GET', `/cluster/nodes/${agent.nodeId}`, { token: await tokenFor('viewer') })).body.data;
    return n?.inventory?.hostname ? n : null;
  });
  expect(view.inventory.bootTime).toBe(Math.floor(bootTimeMs / 1000));
  await agent.stop();
}, 60_000);

test('a boot time that is not Unix seconds is refused naming the field', async () => {
  const id = randomUUID();
  const token = await tokenFor('agent', id);
  for (const bootTime of [-1, '1793761506', 1.5]) {
    const inventory = { hostname: 'h', os: 'FreeBSD 15.0-RELEASE', cpus: 1, memoryBytes: 1, bootTime };
    const res = await call('POST', '/agent/register', { token, body: { id, name: 'h', ip: '192.0.2.9', inventory } });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.inventory.bootTime');
  }
});
