import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import { readFile } from '#simulator/file-tree';
import { createTarget } from '../http/iscsi-fixtures.ts';

/**
 * E13 on hosts that defined iSCSI (and NVMe-oF) of their own: a FreeBSD 15.0 host with its own CHAP target and an
 * NVMe controller keeps both, byte for byte, through three E13 calls (agent/drivers/ctl-conf-merge.ts), and ctld
 * keeps serving its LUN; a host whose rc.conf sets ctld_flags="-u" is refused by the API with 409 naming it.
 */
const HOST_OWN = [
  '# written by the host admin',
  'pidfile /var/run/ctld.pid',
  '',
  'auth-group "ag-chap" {',
  '\tchap "initiator1" "secret123456"',
  '}',
  '',
  'portal-group "pg-host" {',
  '\tdiscovery-auth-group "ag-chap"',
  '\tlisten "0.0.0.0:3260"',
  '}',
  '',
  'target "iqn.2012-06.org.example:host-own" {',
  '\tauth-group "ag-chap"',
  '\tportal-group "pg-host"',
  '\tlun 0 {',
  '\t\tpath "/dev/zvol/tank/host/own0"',
  '\t\toption "pblocksize" "4096"',
  '\t}',
  '}',
  '',
  'transport-group "tg0" {',
  '\tlisten tcp 0.0.0.0:4420',
  '}',
  '',
  'controller "nqn.2012-06.org.example:nvme0" {',
  '\tauth-group "no-authentication"',
  '\ttransport-group "tg0"',
  '\tnamespace 1 {',
  '\t\tpath "/dev/zvol/tank/host/ns1"',
  '\t}',
  '}',
  '',
].join('\n');

const zvols = ['tank/host/own0', 'tank/host/ns1', 'tank/iscsi/a', 'tank/iscsi/b', 'tank/iscsi/c'];
const volumes = (names: string[]) => names.map((name) => ({ name, type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 }));
const post = async (id: number, body: unknown) => call('POST', `/iscsi/targets/${id}/luns`, { body, token: await tokenFor('operator') });

async function inventoried(agent: TestAgent, check: (inv: { datasets?: unknown[]; capabilities?: { ctldFlags?: string } }) => boolean) {
  await waitUntil('the inventory', async () => {
    const node = await testDb().selectFrom('nodes').select('inventory').where('id', '=', agent.nodeId).executeTakeFirst();
    return check((node?.inventory ?? {}) as never);
  });
}

describe('a FreeBSD 15.0 host with its own CHAP target and an NVMe controller', () => {
  let agent: TestAgent;
  let sim: HostSimulator;

  beforeAll(async () => {
    agent = await startTestAgent({
      host: testHost({
        profile: 'freebsd-15.0',
        datasets: volumes(zvols),
        files: {
          '/etc/ctl.conf': { content: HOST_OWN, mode: '0600' },
          '/etc/rc.conf': { content: 'ctld_enable="YES"\n', mode: '0644' },
        },
        ctld: { running: true, loaded: HOST_OWN },
      }),
    });
    await agent.ready();
    sim = new HostSimulator({ statePath: agent.statePath });
    await inventoried(agent, (inv) => (inv.datasets?.length ?? 0) >= zvols.length && inv.capabilities?.ctldFlags === '');
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
  });

  test('keeps both, byte for byte, through three E13 calls, and ctld serves its LUN and hostmgr’s', async () => {
    const { target } = await createTarget(agent.nodeId, { listen: ['0.0.0.0:3261'] });
    for (const [n, zvol] of ['tank/iscsi/a', 'tank/iscsi/b', 'tank/iscsi/c'].entries()) {
      const res = await post(target.id, { lunNumber: n, zvol });
      expectEnvelope(res, 201, 'lun_added');
      const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
      expect(task.error).toBe('');
      expect(task.status).toBe('success');
      const conf = (await sim.state((s) => readFile(s, '/etc/ctl.conf')))!;
      expect(conf.startsWith(HOST_OWN)).toBe(true);
      expect(conf).toContain(`\tlun ${n} {\n\t\tpath "/dev/zvol/${zvol}"\n\t}\n`);
      expect(await sim.state((s) => s.ctld?.loaded)).toBe(conf);
    }
    const devlist = (await sim.run(['ctladm', 'devlist', '-v'])).stdout;
    for (const z of ['tank/host/own0', 'tank/iscsi/a', 'tank/iscsi/b', 'tank/iscsi/c']) expect(devlist).toContain(`      file=/dev/zvol/${z}\n`);
  });
});

describe('a host whose rc.conf sets ctld_flags="-u"', () => {
  let agent: TestAgent;

  beforeAll(async () => {
    agent = await startTestAgent({
      host: testHost({ datasets: volumes(['tank/iscsi/u0']), files: { '/etc/rc.conf': { content: 'ctld_enable="YES"\nctld_flags="-u"\n', mode: '0644' } } }),
    });
    await agent.ready();
    await inventoried(agent, (inv) => (inv.datasets?.length ?? 0) >= 1 && inv.capabilities?.ctldFlags === '-u');
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
  });

  test('E13 answers 409 naming ctld_flags, and queues nothing', async () => {
    const { target } = await createTarget(agent.nodeId);
    const res = await post(target.id, { lunNumber: 0, zvol: 'tank/iscsi/u0' });
    expectEnvelope(res, 409, 'capability_missing');
    expect(res.body.error).toMatch(/^ctld_flags="-u" in \/etc\/rc.conf makes ctld read its configuration as UCL \(-u\)/);
    expect(await testDb().selectFrom('iscsi_luns').select('id').where('target_id', '=', target.id).execute()).toEqual([]);
    expect(await testDb().selectFrom('tasks').select('id').where('node_id', '=', agent.nodeId).where('kind', '=', 'iscsi.apply-config').execute()).toEqual([]);
  });
});
