import type { SimHost } from '#shared/seed/host/schema';
import { readCore, SECTIONS } from '#agent/collectors/inventory';
import { parseConftxt } from '#agent/drivers/geom';
import { simulatedHost } from '../helpers/simulated-host.ts';

/**
 * E7's candidate disks (the inventory's free disks) on a host whose pools sit on GEOM providers rather than on
 * disk names: a GELI-encrypted boot pool (bsdinstall's "encrypt disks": zroot on ada0p3.eli) and pools built on
 * GPT labels and on a disk-ident label. Every pool device is resolved to its disk through kern.geom.conftxt.
 */
const GiB = 2 ** 30;
const host: SimHost = {
  hostname: 'sim-geom.example.net',
  cpus: 4,
  memoryBytes: 16 * GiB,
  disks: [
    {
      name: 'ada0',
      sizeBytes: 240 * GiB,
      partitions: [
        { index: 1, type: 'efi', sizeBytes: 260 * 2 ** 20 },
        { index: 2, type: 'freebsd-swap', sizeBytes: 2 * GiB, eli: true },
        { index: 3, type: 'freebsd-zfs', sizeBytes: 230 * GiB, eli: true },
      ],
    },
    { name: 'ada1', sizeBytes: 1000 * GiB, partitions: [{ index: 1, type: 'freebsd-zfs', sizeBytes: 999 * GiB, label: 'tank0' }] },
    { name: 'ada2', sizeBytes: 1000 * GiB, partitions: [{ index: 1, type: 'freebsd-zfs', sizeBytes: 999 * GiB, label: 'tank1' }] },
    { name: 'ada3', sizeBytes: 500 * GiB, ident: 'S3Z9NB0K123456' },
    { name: 'ada4', sizeBytes: 500 * GiB },
    // a labelled partition no pool uses: its disk stays a candidate
    { name: 'ada5', sizeBytes: 500 * GiB, partitions: [{ index: 1, type: 'freebsd-zfs', sizeBytes: 499 * GiB, label: 'spare0' }] },
  ],
  pools: [
    { name: 'zroot', vdevs: [{ type: 'disk', name: 'ada0p3.eli' }], allocatedBytes: 20 * GiB },
    {
      name: 'tank',
      vdevs: [
        {
          type: 'mirror',
          children: [
            { type: 'disk', name: 'gpt/tank0' },
            { type: 'disk', name: 'gpt/tank1' },
          ],
        },
      ],
      allocatedBytes: 100 * GiB,
    },
    { name: 'scratch', vdevs: [{ type: 'disk', name: 'diskid/DISK-S3Z9NB0K123456' }], allocatedBytes: GiB },
  ],
  datasets: [],
  sysctls: [],
  arc: { sizeBytes: GiB, targetBytes: GiB, minBytes: 2 ** 28, maxBytes: 4 * GiB },
};

test("E7's free disks on a GELI/label host leave out every disk a pool uses through GEOM", async () => {
  const exec = simulatedHost(host);
  const core = await readCore(exec);
  const { disks, pools } = await SECTIONS.pools(exec, core);
  expect(pools!.map((p) => p.name).sort()).toEqual(['scratch', 'tank', 'zroot']);
  expect(disks).toEqual(['ada4', 'ada5']);
});

test('simulated kern.geom.conftxt: the GEOM tree in g_conftxt’s format, each provider under its disk', async () => {
  const exec = simulatedHost(host);
  const out = (await exec.run(['sysctl', '-n', 'kern.geom.conftxt'])).stdout;
  const lines = out.split('\n');
  // geom_dump.c g_conftxt_geom: "level class name mediasize sectorsize" + the class's dumpconf for a NULL indent
  expect(lines).toContain('0 DISK ada0 257698037760 512 hd 16 sc 63');
  expect(lines).toContain('1 PART ada0p1 272629760 512 i 1 o 20480 ty efi xs GPT xt c12a7328-f81f-11d2-ba4b-00a0c93ec93b');
  expect(lines).toContain(`2 ELI ada0p3.eli ${230 * GiB - 4096} 4096`);
  expect(lines).toContain('2 LABEL gpt/tank0 1072668082176 512 i 0 o 0');
  expect(lines).toContain('1 LABEL diskid/DISK-S3Z9NB0K123456 536870912000 512 i 0 o 0');
  // a partition table's providers come newest first: p3 before p1
  expect(lines.findIndex((l) => l.includes(' ada0p3 '))).toBeLessThan(lines.findIndex((l) => l.includes(' ada0p1 ')));
  const map = parseConftxt(out);
  expect([map.get('ada0p3.eli'), map.get('gpt/tank1'), map.get('diskid/DISK-S3Z9NB0K123456'), map.get('ada4')]).toEqual(['ada0', 'ada2', 'ada3', 'ada4']);
});

test('simulated zpool create refuses a disk a pool holds through a GELI provider or a label', async () => {
  const exec = simulatedHost(host);
  for (const [disk, pool] of [
    ['ada0', 'zroot'],
    ['ada1', 'tank'],
    ['ada3', 'scratch'],
  ]) {
    const r = await exec.run(['zpool', 'create', 'new', disk]);
    expect([disk, r.code, r.stderr]).toEqual([disk, 1, expect.stringContaining(`is part of active pool '${pool}'`)]);
  }
});
