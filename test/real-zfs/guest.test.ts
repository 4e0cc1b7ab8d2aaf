import { type Guest, guest } from './guest.ts';

/** The peer itself: real OpenZFS answers over SSH, and every boot starts with no pool. */
let g: Guest;
beforeAll(async () => {
  g = await guest();
});
afterAll(() => g?.close());

test('zfs version answers with the version the run reports, from the real kernel module', async () => {
  const out = await g.ok(['zfs', 'version']);
  expect(out).toMatch(new RegExp(`^zfs-${g.version.replace(/\./g, '\\.')}`, 'm'));
  expect(out).toMatch(/^zfs-kmod-\d+\.\d+\.\d+/m);
  expect(await g.ok(['cat', '/sys/module/zfs/version'])).toMatch(/^\d+\.\d+\.\d+/);
});

test('a pool on file vdevs is created, listed with -H -p, and destroyed', async () => {
  await g.ok(['truncate', '-s', '128M', '/var/tmp/smoke0.img']);
  await g.ok(['zpool', 'create', 'smoke', '/var/tmp/smoke0.img']);
  const list = await g.ok(['zpool', 'list', '-H', '-p', '-o', 'name,health', 'smoke']);
  expect(list).toBe('smoke\tONLINE\n');
  await g.ok(['zpool', 'destroy', 'smoke']);
  await g.ok(['rm', '/var/tmp/smoke0.img']);
  const r = await g.run(['zpool', 'list', '-H', 'smoke']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("cannot open 'smoke': no such pool");
});
