import type { HostInventory } from '#shared/agent-api/inventory';
import { inventoryHash } from '#domain/nodes/inventory-hash';
import type { AgentClient } from './client.ts';
import type { Logger } from './log.ts';

/**
 * Reports the inventory when it changed: checked on an interval and soon after every task (tasks
 * change the host: a replaced disk, a started jail). One check at a time; a request during a check runs
 * another right after it, so the last change is never missed.
 */
export class InventoryWatch {
  private lastHash = '';
  private running: Promise<void> | null = null;
  private again = false;
  private soon: NodeJS.Timeout | null = null;

  constructor(
    private readonly collect: () => Promise<HostInventory>,
    private readonly api: Pick<AgentClient, 'inventory' | 'settledAt'>,
    private readonly log: Logger,
  ) {}

  /** What registration sent. */
  sent(inventory: HostInventory): void {
    this.lastHash = inventoryHash(inventory);
  }

  /** Checks within `delayMs`, coalescing bursts (many tasks finishing together). */
  checkSoon(delayMs = 300): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      void this.check();
    }, delayMs);
  }

  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          // every outcome acknowledged before collecting is reflected in it: the control plane keeps the
          // persisted state of what changed after (a task ending while this was collected)
          const asOf = this.api.settledAt;
          const inventory = await this.collect();
          const hash = inventoryHash(inventory);
          if (hash !== this.lastHash) {
            await this.api.inventory(inventory, { attempts: 3 }, asOf);
            this.lastHash = hash;
            this.log('info', 'inventory reported', { hash: hash.slice(0, 12) });
          }
        } catch (err) {
          this.log('warn', 'inventory check failed; next check retries', { cause: (err as Error).message });
        }
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
