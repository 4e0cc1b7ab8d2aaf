import type { FromSchema } from 'json-schema-to-ts';
import { hooksSchema } from '#shared/agent-api/jail-hooks';

/** A jail of a simulated host: what the seed says (`hosts[nodeId].jails`) and, below "runtime", the kernel's view. */
export const simJailSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ctid', 'name'],
  properties: {
    ctid: { type: 'integer', minimum: 1, maximum: 9999 },
    name: { type: 'string', pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$' },
    /** default: the name */
    hostname: { type: 'string', minLength: 1, maxLength: 255 },
    /** the jail's root; default the dataset's mountpoint, else /usr/local/jails/<name> */
    path: { type: 'string', pattern: '^/' },
    /** ZFS dataset holding the root; created (1 GiB used) when the seed's datasets lack it */
    dataset: { type: 'string', pattern: '^[A-Za-z0-9_.:/-]+$' },
    ip4: { type: 'string' },
    ip6: { type: 'string' },
    state: { enum: ['running', 'stopped'] },
    /** seed: hooks to lay out (all phases optional here) */
    hooks: { type: 'object', additionalProperties: false, properties: hooksSchema.properties },
    /** seed: CPUs the post-start limits pin it to */
    cpuSet: { type: 'array', items: { type: 'integer', minimum: 0 } },
    /** seed: rctl memoryuse limit in bytes */
    memoryBytes: { type: 'integer', minimum: 0 },
    /** what `rctl -u` reports while it runs */
    memoryUsedBytes: { type: 'integer', minimum: 0 },
    // ── runtime ──
    materialized: { type: 'boolean' },
    /** runtime: no seed entry — the kernel learned of it at `jail -c`; its record goes when it is removed */
    createdByJail: { type: 'boolean' },
    jid: { type: 'integer', minimum: 1 },
    cpusetId: { type: 'integer', minimum: 1 },
    /** CPUs the running jail's threads may use (cpuset -l) */
    affinity: { type: 'array', items: { type: 'integer', minimum: 0 } },
    /** every exec.* command jail(8) ran for it, oldest first (bounded) */
    hookRuns: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['phase', 'command', 'atMs'],
        properties: { phase: { type: 'string' }, command: { type: 'string' }, atMs: { type: 'integer' } },
      },
    },
  },
} as const;

export type SimJail = FromSchema<typeof simJailSchema>;
