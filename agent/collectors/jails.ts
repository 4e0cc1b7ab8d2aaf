import type { Executor } from '../executors/executor.ts';
import type { JailInventory } from '#shared/agent-api/inventory';
import { jailInventory } from '../drivers/jail.ts';

/**
 * The jails section of the inventory: every managed jail (`/etc/jail.conf.d/*.conf` carrying the agent's
 * header) with its state from `jls -v --libxo json`, its hooks (conf exec lines + scripts), its post-start
 * limits, and, while it runs, its memory use (`rctl -u`).
 */
export async function collectJails(exec: Executor): Promise<JailInventory[]> {
  return jailInventory(exec);
}
