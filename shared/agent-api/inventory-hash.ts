import { createHash } from 'node:crypto';

/** Key-order independent JSON, so equal inventories hash equally whatever order a collector built them in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The agent sends an inventory only when this changes; the control plane skips re-projecting an unchanged one. */
export const inventoryHash = (inventory: unknown): string => createHash('sha256').update(stableJson(inventory)).digest('hex');
