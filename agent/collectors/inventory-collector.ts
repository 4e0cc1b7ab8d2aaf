import type { Executor } from '../executors/executor.ts';
import type { HostInventory } from '#shared/agent-api/inventory';
import { assembleInventory, collectSection, readCore, SECTION_NAMES, type Section, type SectionResult } from './inventory.ts';
import { PROBES, probeSection } from './inventory-probes.ts';

export interface InventoryCollectorOptions {
  /** a check becomes a full sweep when the last one is this old */
  sweepIntervalMs: number;
  /** clock (tests) */
  now?: () => number;
}

/**
 * The agent's inventory between checks: a full sweep (every section) at the first check, when asked (after
 * a task) and when the last sweep is `sweepIntervalMs` old; in between, only the sections whose probe
 * (./inventory-probes.ts) changed, and those collected at every check, the others kept from before. A full
 * sweep runs on a real host ≈ 60–80 commands; a probing check ≈ 7.
 */
export class InventoryCollector {
  private readonly results = new Map<Section, SectionResult>();
  private readonly fingerprints = new Map<Section, string>();
  private lastSweepAt: number | null = null;
  /** the sections the last check collected (logs, tests) */
  lastCollected: Section[] = [];

  constructor(
    private readonly exec: Executor,
    private readonly opts: InventoryCollectorOptions,
  ) {}

  async collect(full = false): Promise<HostInventory> {
    const now = (this.opts.now ?? Date.now)();
    const core = await readCore(this.exec);
    const sweep = full || this.lastSweepAt === null || now - this.lastSweepAt >= this.opts.sweepIntervalMs;
    const due: Section[] = [];
    for (const section of SECTION_NAMES) {
      // probed in a sweep too, so the next check compares against what this one saw
      const fingerprint = await probeSection(this.exec, core, section);
      const changed = fingerprint !== null && fingerprint !== this.fingerprints.get(section);
      if (fingerprint !== null) this.fingerprints.set(section, fingerprint);
      // a section that failed (or never ran) is tried again at every check
      const ok = this.results.get(section);
      if (sweep || changed || PROBES[section] === 'every check' || !ok || 'error' in ok) due.push(section);
    }
    for (const section of due) this.results.set(section, await collectSection(this.exec, core, section));
    if (sweep) this.lastSweepAt = now;
    this.lastCollected = due;
    return assembleInventory(core, this.results);
  }
}
