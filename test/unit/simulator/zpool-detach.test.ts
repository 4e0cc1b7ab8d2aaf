import type { SimHost } from '#shared/seed/host/schema';
import { host, simulate } from './sim-helper.ts';

/** `zpool detach` as the simulator answers it: E7's undo step when a replacement is cancelled. */
const disk = (name: string) => ({ name, sizeBytes: 1e11 });
const leaf = (name: string) => ({ type: 'disk' as const, name });
const mirrorHost = (): SimHost =>
  host({
    disks: ['ada1', 'ada2', 'ada3'].map(disk),
    pools: [{ name: 'tank', vdevs: [{ type: 'mirror', children: [leaf('ada1'), leaf('ada2')] }], allocatedBytes: 1e9 }],
  });

describe('zpool detach', () => {
  it('detaching the new side of a replacement calls it off: the old device stays, the resilver is canceled', async () => {
    const h = simulate(mirrorHost());
    expect((await h.exec.run(['zpool', 'replace', 'tank', 'ada1', 'ada3'])).code).toBe(0);
    h.advance(1000);
    expect((await h.exec.run(['zpool', 'status', 'tank'])).stdout).toContain('replacing-0');
    expect(await h.exec.run(['zpool', 'detach', 'tank', '/dev/ada3'])).toEqual({ code: 0, stdout: '', stderr: '' });
    const status = (await h.exec.run(['zpool', 'status', 'tank'])).stdout;
    expect(status).toMatch(/scan: resilver canceled on /);
    expect(status).not.toContain('replacing');
    expect(status).not.toContain('ada3');
    expect(status).toMatch(/mirror-0\s+ONLINE/);
    // later time does not bring the replacement back
    h.advance(60_000);
    expect((await h.exec.run(['zpool', 'status', 'tank'])).stdout).not.toContain('ada3');
  });

  it('a mirror member detaches and the mirror of one collapses to a plain disk', async () => {
    const h = simulate(mirrorHost());
    expect((await h.exec.run(['zpool', 'detach', 'tank', 'ada2'])).code).toBe(0);
    expect(await h.exec.simulator.state((s) => s.pools[0].vdevs)).toEqual([expect.objectContaining({ type: 'disk', name: 'ada1' })]);
  });

  it("refuses in libzfs's words", async () => {
    const h = simulate(mirrorHost());
    expect(await h.exec.run(['zpool', 'detach', 'tank', 'ada9'])).toEqual({ code: 255, stdout: '', stderr: 'cannot detach ada9: no such device in pool\n' });
    expect((await h.exec.run(['zpool', 'detach', 'nope', 'ada1'])).stderr).toBe("cannot open 'nope': no such pool\n");
    expect((await h.exec.run(['zpool', 'detach', 'tank', 'ada2'])).code).toBe(0);
    expect(await h.exec.run(['zpool', 'detach', 'tank', 'ada1'])).toEqual({
      code: 255,
      stdout: '',
      stderr: 'cannot detach ada1: only applicable to mirror and replacing vdevs\n',
    });
    expect((await h.exec.run(['zpool', 'detach', 'tank'])).code).toBe(2);
  });
});
