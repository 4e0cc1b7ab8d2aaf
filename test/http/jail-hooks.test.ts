import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { queueTask } from '../helpers/agent.ts';
import { noHooks } from '#shared/agent-api/jail-hooks';
import { arrangeNode, freeGuestId, guestRow, jailInv, tasksOf } from './jail-setup.ts';

const path = (ctid: number | string) => `/jail/${ctid}/options/lifecycle-hooks`;
const hooks = (over: Record<string, { enabled: boolean; script: string }> = {}) => ({ ...noHooks(), ...over });

describe('E3 PUT /api/jail/{ctid}/options/lifecycle-hooks', () => {
  let ctid: number;
  let nodeId: string;
  let operator: string;

  beforeAll(async () => {
    ctid = await freeGuestId();
    nodeId = await arrangeNode({ jails: [jailInv(ctid, { hooks: hooks({ prestop: { enabled: true, script: 'echo old' } }) })] });
    operator = await tokenFor('operator');
  });

  test('replaces all six phases, persists them and queues the host work', async () => {
    const body = {
      hooks: hooks({
        prestart: { enabled: true, script: '/sbin/ifconfig epair0 create up' },
        poststart: { enabled: true, script: '#!/bin/sh\nlogger started' },
        // disabled + blank clears; disabled with a script keeps it (not wired)
        stop: { enabled: false, script: '   ' },
        poststop: { enabled: false, script: 'echo later' },
      }),
    };
    const res = await call('PUT', path(ctid), { token: operator, body });
    expectEnvelope(res, 200, 'jail_hooks_updated');
    const expected = { ...body.hooks, stop: { enabled: false, script: '' } };
    expect(res.body.data).toEqual({ ctId: ctid, hooks: expected, taskId: expect.any(Number) });

    const row = await guestRow(ctid);
    expect((row!.config as any).hooks).toEqual(expected);
    // what the host reported stays as it was until the agent has applied the change
    expect((row!.config as any).host.hooks.prestop).toEqual({ enabled: true, script: 'echo old' });

    const tasks = await tasksOf(ctid);
    const task = tasks.find((t) => t.id === res.body.data.taskId)!;
    expect(task).toMatchObject({ kind: 'jail.apply-hooks', node_id: nodeId, status: 'queued', exclusive: false });
    expect(task.payload).toEqual({ ctid, name: `j${ctid}`, hooks: expected });
  });

  test('an enabled phase with a blank script is 400 naming each such phase; nothing changes', async () => {
    const before = await guestRow(ctid);
    const res = await call('PUT', path(ctid), {
      token: operator,
      body: { hooks: hooks({ prestart: { enabled: true, script: '' }, stop: { enabled: true, script: ' \n\t' } }) },
    });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.hooks.prestart.script: must not be blank when the phase is enabled');
    expect(res.body.error).toContain('body.hooks.stop.script');
    expect((await guestRow(ctid))!.config).toEqual(before!.config);
  });

  test('a start/stop script runs in the jail through jexec: its #! line must be a plain absolute path (400), others are free', async () => {
    const before = await guestRow(ctid);
    const res = await call('PUT', path(ctid), {
      token: operator,
      body: { hooks: hooks({ start: { enabled: true, script: '#!/bin/sh; id\necho' }, prestart: { enabled: true, script: '#!/bin/sh; id\necho' } }) },
    });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain("body.hooks.start.script: its '#!' line must be an absolute path with at most one argument");
    expect(res.body.error).not.toContain('body.hooks.prestart');
    expect((await guestRow(ctid))!.config).toEqual(before!.config);
    const other = await freeGuestId();
    await arrangeNode({ jails: [jailInv(other)] });
    const ok = await call('PUT', path(other), {
      token: operator,
      body: { hooks: hooks({ stop: { enabled: true, script: '#!/usr/local/bin/bash -e\necho bye' } }) },
    });
    expectEnvelope(ok, 200);
  });

  test('bad input per field is 400 listing every field', async () => {
    const { stop: _s, ...fivePhases } = hooks();
    void _s;
    let res = await call('PUT', path(ctid), { token: operator, body: { hooks: fivePhases } });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.hooks.stop: is required');

    res = await call('PUT', path(ctid), {
      token: operator,
      body: { hooks: { ...hooks(), start: { enabled: 'yes', script: 1 }, restart: { enabled: true, script: 'x' } } },
    });
    expectEnvelope(res, 400);
    expect(res.body.error).toContain('body.hooks.start.enabled: must be boolean');
    expect(res.body.error).toContain('body.hooks.start.script: must be string');
    expect(res.body.error).toContain('body.hooks.restart: is not an accepted field');

    res = await call('PUT', path(ctid), { token: operator, body: { hooks: { ...hooks(), poststart: { enabled: true } } } });
    expect(res.body.error).toContain('body.hooks.poststart.script: is required');

    res = await call('PUT', path(ctid), { token: operator, body: {} });
    expect(res.body.error).toContain('body.hooks: is required');
    res = await call('PUT', path(ctid), { token: operator, body: { hooks: hooks(), extra: 1 } });
    expect(res.body.error).toContain('body.extra: is not an accepted field');
    res = await call('PUT', path(ctid), { token: operator, rawBody: '{"hooks":' });
    expectEnvelope(res, 400, 'malformed_json');
    for (const bad of ['0', 'abc', '2147483648']) {
      res = await call('PUT', path(bad), { token: operator, body: { hooks: hooks() } });
      expectEnvelope(res, 400);
      expect(res.body.error).toMatch(/^path\.ctid: /);
    }
  });

  test('unknown jail is 404 (a VM id is not a jail)', async () => {
    const missing = await freeGuestId();
    const res = await call('PUT', path(missing), { token: operator, body: { hooks: hooks() } });
    expectEnvelope(res, 404, 'jail_not_found');
    expect(res.body.error).toBe(`jail ${missing} does not exist`);
    const vmId = await freeGuestId();
    await testDb()
      .insertInto('guests')
      .values({ id: vmId, type: 'vm', node_id: nodeId, name: `vm${vmId}`, state: 'shut off', config: '{}' })
      .execute();
    expectEnvelope(await call('PUT', path(vmId), { token: operator, body: { hooks: hooks() } }), 404, 'jail_not_found');
    expectEnvelope(await call('GET', `/jail/${vmId}`, { token: operator }), 404, 'jail_not_found');
  });

  test('409 while an exclusive task (a migration) holds the jail; nothing changes', async () => {
    const busy = await freeGuestId();
    const node = await arrangeNode({ jails: [jailInv(busy)] });
    const t = await queueTask({
      kind: 'jail.migrate',
      nodeId: node,
      resource: `jail:${busy}`,
      payload: { ctid: busy, name: `j${busy}`, dataset: 'x', target: { nodeId: node, address: '127.0.0.1', hostKeys: [] } },
      dispatch: false,
    });
    const res = await call('PUT', path(busy), { token: operator, body: { hooks: hooks({ start: { enabled: true, script: 'x' } }) } });
    expectEnvelope(res, 409, 'jail_busy');
    expect(res.body.error).toContain(`task ${t.id} (jail.migrate)`);
    expect(((await guestRow(busy))!.config as any).hooks).toEqual(noHooks());
    expect((await tasksOf(busy)).map((x) => x.kind)).toEqual(['jail.migrate']);
  });

  test('401 without a token, 403 for a viewer', async () => {
    expectEnvelope(await call('PUT', path(ctid), { token: null, body: { hooks: hooks() } }), 401, 'unauthorized');
    expectEnvelope(await call('PUT', path(ctid), { token: await tokenFor('viewer'), body: { hooks: hooks() } }), 403, 'forbidden');
  });

  test('GET /api/jail/{ctid} shows the persisted hooks (viewer)', async () => {
    const res = await call('GET', `/jail/${ctid}`, { token: await tokenFor('viewer') });
    expectEnvelope(res, 200, 'jail');
    expect(res.body.data).toMatchObject({ ctId: ctid, nodeId, state: 'stopped', name: `j${ctid}` });
    expect(res.body.data.hooks.prestart).toEqual({ enabled: true, script: '/sbin/ifconfig epair0 create up' });
  });
});
