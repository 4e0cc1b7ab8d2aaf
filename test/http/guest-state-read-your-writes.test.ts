import { AgentApi } from '#agent/runtime/api';
import { AgentClient } from '#agent/runtime/client';
import { apiUrl, call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { insertNode } from '../helpers/agent.ts';
import { freeRids } from './vm-fixtures.ts';
import { freeGuestId, jailInv } from './jail-setup.ts';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import type { HostInventory } from '#shared/agent-api/inventory';

/**
 * A guest's state after a power task: the agent's inventory report collected while the task ran (its `asOf`, the
 * newest task outcome the agent had seen acknowledged when it began collecting, predates the task's end) and
 * posted after the task ended does not put the old state back — so a following start is not answered
 * "already running". A report collected after the outcome (asOf at or past the task's finishedAt) is the truth
 * again. Reports are held back by hand here, so no timing luck is involved.
 */
let node: string;
let agent: string;
let operator: string;
let rid: number;
let ctid: number;

const inventory = (states: { jail: 'running' | 'stopped'; vm: 'running' | 'shut off' }, memoryBytes: number): HostInventory => ({
  hostname: 'ryw-guests',
  os: 'FreeBSD 14.3-RELEASE',
  cpus: 4,
  memoryBytes,
  jails: [jailInv(ctid, { state: states.jail, jid: states.jail === 'running' ? 7 : null })],
  vms: [{ rid, domain: String(rid), name: `vm${rid}`, state: states.vm, options: defaultVmOptions(), macs: [], datasets: [] }],
});
const report = (inv: unknown, asOf?: string) => call('PUT', '/agent/inventory', { token: agent, body: { inventory: inv, ...(asOf ? { asOf } : {}) } });
const stateOf = async (id: number) => (await testDb().selectFrom('guests').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;
const storeNow = async () =>
  new Date(
    (
      await testDb()
        .selectNoFrom((eb) => eb.fn<Date>('now').as('now'))
        .executeTakeFirstOrThrow()
    ).now,
  ).toISOString();

/** The agent's side of a power task: start it, report success with the state it left; returns finishedAt. */
async function runToSuccess(taskId: number, result: unknown): Promise<string> {
  const started = await call('POST', `/agent/tasks/${taskId}/start`, { token: agent });
  expect(started.body.data.run).toBe(true);
  const done = await call('POST', `/agent/tasks/${taskId}/finish`, { token: agent, body: { attempt: started.body.data.attempt, status: 'success', result } });
  expectEnvelope(done, 200);
  return done.body.data.finishedAt;
}

beforeAll(async () => {
  [rid] = await freeRids(1);
  ctid = await freeGuestId();
  node = await insertNode(undefined, { status: 'member' });
  agent = await tokenFor('agent', node);
  operator = await tokenFor('operator');
  expectEnvelope(await report(inventory({ jail: 'running', vm: 'running' }, 1)), 200);
  expect([await stateOf(ctid), await stateOf(rid)]).toEqual(['running', 'running']);
});

test('jail stop: a report collected while it ran, posted after it ended, does not revert it; start is queued, not "already running"', async () => {
  const collectedAt = await storeNow();
  const stop = await call('POST', `/jail/${ctid}/power`, { token: operator, body: { action: 'stop' } });
  expectEnvelope(stop, 202, 'jail_power_queued');
  const finishedAt = await runToSuccess(stop.body.data.taskId, { ctid, action: 'stop', state: 'stopped', changed: true });
  expect(await stateOf(ctid)).toBe('stopped');

  expectEnvelope(await report(inventory({ jail: 'running', vm: 'running' }, 2), collectedAt), 200);
  expect(await stateOf(ctid)).toBe('stopped');
  const start = await call('POST', `/jail/${ctid}/power`, { token: operator, body: { action: 'start' } });
  expectEnvelope(start, 202, 'jail_power_queued');
  await testDb().updateTable('tasks').set({ status: 'cancelled', finished_at: new Date() }).where('id', '=', start.body.data.taskId).execute();

  // collected after the outcome: the host's word (someone started it by hand)
  const later = await storeNow();
  expect(later >= finishedAt).toBe(true);
  expectEnvelope(await report(inventory({ jail: 'running', vm: 'running' }, 3), later), 200);
  expect(await stateOf(ctid)).toBe('running');
});

test('vm stop: the same for a VM', async () => {
  const collectedAt = await storeNow();
  const stop = await call('POST', `/vm/${rid}/power`, { token: operator, body: { action: 'stop' } });
  expectEnvelope(stop, 202, 'vm_power_queued');
  const finishedAt = await runToSuccess(stop.body.data.taskId, { rid, action: 'stop', state: 'shut off', changed: true, stoppedBy: 'acpi' });
  expect(await stateOf(rid)).toBe('shut off');

  expectEnvelope(await report(inventory({ jail: 'running', vm: 'running' }, 4), collectedAt), 200);
  expect(await stateOf(rid)).toBe('shut off');
  expectEnvelope(await call('POST', `/vm/${rid}/power`, { token: operator, body: { action: 'stop' } }), 200, 'vm_already_shut_off');

  expectEnvelope(await report(inventory({ jail: 'running', vm: 'running' }, 5), finishedAt), 200);
  expect(await stateOf(rid)).toBe('running');
});

test("the agent's client: a report collected before its first acknowledged finish is as recent as its registration, so it cannot revert that task", async () => {
  const client = new AgentClient(new AgentApi(apiUrl(), agent, () => {}));
  const running = inventory({ jail: 'running', vm: 'running' }, 6);
  await client.register({ id: node, name: 'ryw-guests', ip: '192.0.2.10', inventory: running });
  expect(await stateOf(ctid)).toBe('running');
  // what the inventory watch reads as it begins collecting, before any task of this process has ended
  const asOf = client.settledAt;
  expect(asOf).toEqual(expect.any(String));

  const stop = await call('POST', `/jail/${ctid}/power`, { token: operator, body: { action: 'stop' } });
  expectEnvelope(stop, 202, 'jail_power_queued');
  const started = await client.start(stop.body.data.taskId);
  const done = await client.finish(stop.body.data.taskId, {
    attempt: started.attempt,
    status: 'success',
    result: { ctid, action: 'stop', state: 'stopped', changed: true },
  });
  expect(client.settledAt).toBe(done.finishedAt);
  // the report collected while the stop ran, posted after its outcome
  await client.inventory(inventory({ jail: 'running', vm: 'running' }, 7), undefined, asOf);
  expect(await stateOf(ctid)).toBe('stopped');
});
