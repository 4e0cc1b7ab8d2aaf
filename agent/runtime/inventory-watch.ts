import type { HostInventory } from '#shared/agent-api/inventory';
import { inventoryHash } from '#shared/agent-api/inventory-hash';
import type { AgentClient } from './client.ts';
import type { Logger } from './log.ts';

/** Collects the inventory: `full` looks at every section, otherwise the source may keep what it saw before. */
export interface InventorySource {
  collect(full: boolean): Promise<HostInventory>;
}

/**
 * Reports the inventory when it changed: checked on an interval and soon after every task (tasks
 * change the host: a replaced disk, a started jail). One check at a time; a request during a check runs
 * another right after it, so the last change is never missed. `collect(full)`: a full check looks at every
 * section (after a task); an interval check may look at fewer (the collector decides).
 */
export class InventoryWatch {
  private lastHash = '';
  private running: Promise<void> | null = null;
  private again = false;
  private againFull = false;
  private soon: NodeJS.Timeout | null = null;

  constructor(
    private readonly collect: (full: boolean) => Promise<HostInventory>,
    private readonly api: Pick<AgentClient, 'inventory' | 'settledAt'>,
    private readonly log: Logger,
  ) {}

  /** What registration sent. */
  sent(inventory: HostInventory): void {
    this.lastHash = inventoryHash(inventory);
  }

  /** A full check within `delayMs`, coalescing bursts (many tasks finishing together). */
  checkSoon(delayMs = 300): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      void this.check(true);
    }, delayMs);
  }

  check(full = false): Promise<void> {
    if (this.running) {
      this.again = true;
      this.againFull ||= full;
      return this.running;
    }
    let nextFull = full;
    this.running = (async () => {
      do {
        const thisFull = nextFull;
        this.again = false;
        this.againFull = false;
        try {
          // every outcome acknowledged before collecting is reflected in it: the control plane keeps the
          // persisted state of what changed after (a task ending while this was collected)
          const asOf = this.api.settledAt;
          const inventory = await this.collect(thisFull);
          const hash = inventoryHash(inventory);
          if (hash !== this.lastHash) {
            await this.api.inventory(inventory, { attempts: 3 }, asOf);
            this.lastHash = hash;
            this.log('info', 'inventory reported', { hash: hash.slice(0, 12) });
          }
        } catch (err) {
          this.log('warn', 'inventory check failed; next check retries', { cause: (err as Error).message });
        }
        nextFull = this.againFull;
      } while (this.again);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  stop(): void {
    if (this.soon) clearTimeout(this.soon);
    this.soon = null;
  }
}
