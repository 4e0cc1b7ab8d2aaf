import { parseBoottime } from '#agent/drivers/boottime';
import { listTunables, parseSysctlLines } from '#agent/drivers/sysctl';
import { readCore } from '#agent/collectors/inventory';
import { fixture, host, simulate, T0 } from '../simulator/sim-helper.ts';

// kern.boottime as FreeBSD 14.4 prints it (sysctl-hw-ncpu-and-more-freebsd14.txt): S_timeval's
// `{ sec = %jd, usec = %ld } ` then ctime(3) in the host's zone (UTC-4 there)
const real = () => {
  const line = parseSysctlLines(fixture('sysctl-hw-ncpu-and-more-freebsd14.txt')).find((l) => l.name === 'kern.boottime');
  if (!line) throw new Error('fixture has no kern.boottime');
  return line.value;
};

describe('kern.boottime parser', () => {
  it('reads the seconds of a real host’s value', () => {
    expect(real()).toBe('{ sec = 1790798684, usec = 725700 } Wed Sep 30 16:04:44 2026');
    expect(parseBoottime(real())).toBe(1790798684);
    // sysctl -n prints the value alone, with its newline
    expect(parseBoottime(`${real()}\n`)).toBe(1790798684);
  });

  it('leaves out what is not S_timeval’s format rather than guessing', () => {
    expect(parseBoottime('')).toBeUndefined();
    expect(parseBoottime('Wed Sep 30 16:04:44 2026')).toBeUndefined();
    // `sysctl -h` groups digits (%'jd): not what the agent asks for
    expect(parseBoottime('{ sec = 1,790,798,684, usec = 725,700 } Wed Sep 30 16:04:44 2026')).toBeUndefined();
    expect(parseBoottime('{ sec = -5, usec = 0 } Thu Jan  1 00:00:00 1970')).toBeUndefined();
  });
});

describe('the simulator’s kern.boottime', () => {
  it('answers sysctl -n kern.boottime in S_timeval’s format, ctime in UTC', async () => {
    const h = simulate(host({ bootTimeMs: 1790798684725 }));
    const r = await h.exec.run(['sysctl', '-n', 'kern.boottime']);
    expect(r.code).toBe(0);
    // the real sample's instant, printed by a host whose zone is UTC
    expect(r.stdout).toBe('{ sec = 1790798684, usec = 725000 } Wed Sep 30 20:04:44 2026\n');
    expect((await h.exec.run(['sysctl', '-t', 'kern.boottime'])).stdout).toBe('kern.boottime: opaque\n');
  });

  it('pads a one-digit day as asctime does, and follows the host’s boot time', async () => {
    const h = simulate(host({ bootTimeMs: Date.UTC(2026, 10, 4, 3, 5, 6, 789) }));
    expect((await h.exec.run(['sysctl', 'kern.boottime'])).stdout).toBe('kern.boottime: { sec = 1793761506, usec = 789000 } Wed Nov  4 03:05:06 2026\n');
    // a host seeded without a boot time booted three days before its first start
    const fresh = simulate(host());
    expect(parseBoottime((await fresh.exec.run(['sysctl', '-n', 'kern.boottime'])).stdout)).toBe((T0 - 3 * 86_400_000) / 1000);
  });

  it('reaches the agent’s report as bootTime, and is no tunable', async () => {
    const h = simulate(host({ bootTimeMs: 1790798684725 }));
    expect((await readCore(h.exec)).identity.bootTime).toBe(1790798684);
    expect((await listTunables(h.exec)).map((t) => t.name)).not.toContain('kern.boottime');
  });
});
