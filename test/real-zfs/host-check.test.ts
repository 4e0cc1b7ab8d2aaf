import { hostCheckCli } from '#agent/check/cli';
import { type Guest, guest } from './guest.ts';
import { createPool, dropPool } from './scenario.ts';

/**
 * The host-check kit over SSH against the real-OpenZFS guest: its scratch-pool scenario runs on real zpool/zfs,
 * every scenario that needs FreeBSD is reported skipped with the reason, and the guest is left exactly as found —
 * its pools, datasets and their properties, and /var/tmp (where the kit keeps its vdev files).
 */
const BYSTANDER = 'hmbystander';
let g: Guest;
beforeAll(async () => {
  g = await guest();
  // a pool the kit must not touch, with a dataset and a snapshot, so that "as found" has something in it
  await createPool(g, BYSTANDER);
  await g.ok(['zfs', 'create', '-o', 'compression=zstd', `${BYSTANDER}/keep`]);
  await g.ok(['zfs', 'snapshot', `${BYSTANDER}/keep@before`]);
});
afterAll(async () => {
  if (!g) return;
  await dropPool(g, BYSTANDER);
  await g.close();
});

/** What "as found" means: pool list, every dataset and snapshot with every property, and /var/tmp's entries. */
async function hostState(): Promise<string> {
  const pools = await g.ok(['zpool', 'list', '-H', '-p', '-o', 'name,guid,size,health,altroot']);
  const props = await g.ok(['zfs', 'get', '-H', '-p', '-t', 'all', '-o', 'name,property,value,source', 'all']);
  // space and time figures move with any write to the pool (the kit writes to none of these, but ZFS updates its
  // own accounting); everything else must be as it was
  const stable = props
    .split('\n')
    .filter(
      (l) =>
        !/\t(used|usedbysnapshots|usedbydataset|usedbychildren|available|referenced|logicalused|logicalreferenced|written|written@\S+|compressratio|refcompressratio)\t/.test(
          l,
        ),
    )
    .join('\n');
  const tmp = await g.ok(['ls', '-a', '/var/tmp']);
  return `${pools}\n${stable}\n${tmp}`;
}

test('on a host that is not FreeBSD the kit runs the scratch-pool scenario on real OpenZFS, skips the rest with the reason, and leaves the guest as found', async () => {
  const before = await hostState();
  const out: string[] = [];
  const err: string[] = [];
  const code = await hostCheckCli(['--ssh', `root@127.0.0.1:${g.port}`, '--identity', g.keyFile, '--insecure-accept-any-host-key', '--json'], {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    signal: new AbortController().signal,
  });
  const report = JSON.parse(out.join('')) as { results: { name: string; verdict: string; detail: string; cleanupErrors: string[] }[] };
  const byName = Object.fromEntries(report.results.map((r) => [r.name, r]));
  expect(byName['scratch-pool']).toMatchObject({ verdict: 'ok', cleanupErrors: [] });
  expect(byName['scratch-pool'].detail).toMatch(/snapshot, send\/recv \(\d+ bytes\), rename, mount, file restored; .*vdev0 replaced by .*vdev1, resilvered/);
  const others = report.results.filter((r) => r.name !== 'scratch-pool');
  expect(others.length).toBeGreaterThan(0);
  for (const r of others)
    expect(r).toMatchObject({ verdict: 'skipped', detail: "not run: this host runs Linux, not FreeBSD (the scenario needs FreeBSD's own tools)" });
  expect(err.join('')).toContain('this host runs Linux, not FreeBSD: only the ZFS scenarios run');
  expect(code).toBe(0);
  expect(await hostState()).toBe(before);
});
