// @tier stack
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { testDb, uid } from '../helpers/api.ts';
import { loadSeed, SeedError, DEMO_SEED } from '#shared/seed/load';
import { validateSeed } from '#shared/seed/validate';
import { checkCtlConf } from '#agent/drivers/ctl-conf-check';

/** The seed's `iscsi` section (shared/seed/iscsi.ts): portal groups, targets and LUNs into the store. */
const problemsOf = async (fn: () => Promise<unknown>): Promise<string[]> => {
  try {
    await fn();
  } catch (err) {
    if (err instanceof SeedError) return err.problems;
    throw err;
  }
  throw new Error('expected a SeedError');
};

function seedFor(nodeId: string, t: string) {
  return {
    nodes: [{ id: nodeId, name: `iscsi-${t}` }],
    iscsi: {
      portalGroups: [{ nodeId, name: `pg-${t}`, listen: ['0.0.0.0:3260'] }],
      targets: [
        {
          nodeId,
          name: `iqn.2026-01.org.example:${t}`,
          portalGroup: `pg-${t}`,
          luns: [
            { lunNumber: 0, zvol: 'tank/iscsi/a' },
            { lunNumber: 4, zvol: 'tank/iscsi/b' },
          ],
        },
      ],
    },
  };
}

test('targets with their LUNs are loaded, defaults applied; loading twice adds nothing', async () => {
  const nodeId = randomUUID();
  const t = uid();
  const seed = validateSeed(seedFor(nodeId, t), 'fixture');
  await loadSeed(testDb(), seed, 'fixture');
  await loadSeed(testDb(), seed, 'fixture');
  const targets = await testDb().selectFrom('iscsi_targets').selectAll().where('node_id', '=', nodeId).execute();
  expect(targets).toHaveLength(1);
  expect(targets[0]).toMatchObject({ name: `iqn.2026-01.org.example:${t}`, alias: '', auth_group: 'no-authentication' });
  const luns = await testDb()
    .selectFrom('iscsi_luns')
    .select(['lun_number', 'zvol', 'task_id'])
    .where('target_id', '=', targets[0].id)
    .orderBy('lun_number')
    .execute();
  expect(luns).toEqual([
    { lun_number: 0, zvol: 'tank/iscsi/a', task_id: null },
    { lun_number: 4, zvol: 'tank/iscsi/b', task_id: null },
  ]);
});

test('refused with the field named: bad listen address or zvol, an auth-group ctld does not have (schema), unknown node, unknown portal group', async () => {
  const nodeId = randomUUID();
  const bad = seedFor(nodeId, uid());
  bad.iscsi.portalGroups[0].listen = ['iscsi.example.org'];
  bad.iscsi.targets[0].luns[0].zvol = '/dev/zvol/tank/a';
  const problems = await problemsOf(async () => validateSeed(bad, 'fixture'));
  expect(problems.some((p) => p.startsWith('iscsi.portalGroups[0].listen[0]: '))).toBe(true);
  expect(problems.some((p) => p.startsWith('iscsi.targets[0].luns[0].zvol: '))).toBe(true);

  // hostmgr writes no auth-group blocks: only ctld's built-in groups exist on the host
  const authGroups = seedFor(nodeId, uid()) as ReturnType<typeof seedFor> & {
    iscsi: { portalGroups: Array<{ discoveryAuthGroup?: string }>; targets: Array<{ authGroup?: string }> };
  };
  authGroups.iscsi.targets[0].authGroup = 'chap-users';
  authGroups.iscsi.portalGroups[0].discoveryAuthGroup = 'chap-users';
  const agProblems = await problemsOf(async () => validateSeed(authGroups, 'fixture'));
  expect(agProblems.some((p) => p.startsWith('iscsi.targets[0].authGroup: '))).toBe(true);
  expect(agProblems.some((p) => p.startsWith('iscsi.portalGroups[0].discoveryAuthGroup: '))).toBe(true);

  const orphan = seedFor(nodeId, uid());
  const unknownNode = validateSeed({ iscsi: orphan.iscsi }, 'fixture');
  expect(await problemsOf(() => loadSeed(testDb(), unknownNode, 'fixture'))).toEqual([
    `iscsi.portalGroups[0].nodeId: node ${nodeId} is neither in this file nor in the store`,
    `iscsi.targets[0].nodeId: node ${nodeId} is neither in this file nor in the store`,
  ]);
  const noGroup = seedFor(nodeId, uid());
  noGroup.iscsi.targets[0].portalGroup = 'pg-none';
  expect(await problemsOf(() => loadSeed(testDb(), validateSeed(noGroup, 'fixture'), 'fixture'))).toEqual([
    `iscsi.targets[0].portalGroup: node ${nodeId} has no portal group pg-none`,
  ]);
});

test("the demo host's /etc/ctl.conf is one ctld accepts and holds the demo's seeded LUNs", () => {
  const demo = JSON.parse(readFileSync(DEMO_SEED, 'utf8'));
  const [nodeId, host] = Object.entries(demo.hosts as Record<string, { files?: Record<string, { content: string }>; ctld?: { running: boolean } }>).find(
    ([, h]) => h.ctld,
  )!;
  expect(host.ctld?.running).toBe(true);
  const conf = checkCtlConf(host.files!['/etc/ctl.conf'].content);
  const seeded = (demo.iscsi.targets as Array<{ nodeId: string; name: string; luns: Array<{ lunNumber: number; zvol: string }> }>).filter(
    (t) => t.nodeId === nodeId,
  );
  expect(conf.targets.map((t) => t.name).sort()).toEqual(seeded.map((t) => t.name).sort());
  for (const t of seeded)
    expect(conf.targets.find((c) => c.name === t.name)!.luns).toEqual(t.luns.map((l) => ({ number: l.lunNumber, path: `/dev/zvol/${l.zvol}` })));
});
