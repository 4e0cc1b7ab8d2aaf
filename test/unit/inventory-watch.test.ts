import { InventoryWatch } from '#agent/runtime/inventory-watch';
import type { HostInventory } from '#shared/agent-api/inventory';

const inv = (hostname: string): HostInventory => ({ hostname, os: 'FreeBSD 14.3-RELEASE', cpus: 1, memoryBytes: 1 });

/** A watch whose collector records whether each call was a full one, and can be held mid-collection. */
function watch() {
  const calls: boolean[] = [];
  const reported: string[] = [];
  let release: (() => void) | null = null;
  let hold = false;
  let host = 'a';
  const w = new InventoryWatch(
    async (full) => {
      calls.push(full);
      if (hold) await new Promise<void>((r) => (release = r));
      return inv(host);
    },
    { settledAt: 0, inventory: async (i: HostInventory) => void reported.push(i.hostname) } as never,
    () => undefined,
  );
  return {
    w,
    calls,
    reported,
    hold: () => (hold = true),
    release: () => ((hold = false), release?.()),
    setHost: (h: string) => (host = h),
  };
}

describe('inventory watch: full checks after tasks, probing checks on the interval', () => {
  it('an interval check asks for a probing collection, a check after a task for a full one', async () => {
    const t = watch();
    await t.w.check();
    expect(t.calls).toEqual([false]);
    t.w.checkSoon(0);
    await new Promise((r) => setTimeout(r, 20));
    await t.w.check();
    expect(t.calls).toEqual([false, true, false]);
    // reported once: nothing changed after the first
    expect(t.reported).toEqual(['a']);
  });

  it('a full check asked for during a probing one runs full right after it', async () => {
    const t = watch();
    t.hold();
    const first = t.w.check();
    const during = t.w.check(true);
    t.setHost('b');
    t.release();
    await Promise.all([first, during]);
    expect(t.calls).toEqual([false, true]);
    expect(t.reported).toEqual(['b']);
  });
});
