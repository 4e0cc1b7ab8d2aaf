import type { FromSchema } from 'json-schema-to-ts';
import { authGroupSchema, lunNumberSchema, zvolSchema } from '../domain/iscsi/schemas.ts';
import { NODE_ID_PATTERN } from './node-id.ts';

/**
 * The seed's `iscsi` section: each node's portal groups and targets with their LUNs (E13 adds LUNs; there is no
 * endpoint creating targets). Loaded by ./iscsi.ts. The simulated host's `/etc/ctl.conf` (its `files`) should
 * describe the same configuration.
 */
const name = { type: 'string', minLength: 1, maxLength: 223, pattern: '^[A-Za-z0-9.:_-]+$' } as const;
const nodeId = { type: 'string', pattern: NODE_ID_PATTERN } as const;

export const iscsiSeedSchema = {
  description: "iSCSI portal groups and targets with their LUNs, per node (the host's ctl.conf should match)",
  type: 'object',
  additionalProperties: false,
  properties: {
    portalGroups: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['nodeId', 'name', 'listen'],
        properties: {
          nodeId,
          name,
          discoveryAuthGroup: { ...authGroupSchema, default: 'no-authentication' },
          /** IPv4 or [IPv6] literals, optionally with :port, as ctl.conf's `listen` takes them */
          listen: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^([0-9.]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$' } },
        },
      },
    },
    targets: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['nodeId', 'name', 'portalGroup'],
        properties: {
          nodeId,
          /** the IQN */
          name,
          alias: { type: 'string', maxLength: 200, pattern: '^[^"\\n]*$', default: '' },
          authGroup: { ...authGroupSchema, default: 'no-authentication' },
          portalGroup: { ...name, description: 'a portal group of the same node (in this file or the store)' },
          luns: {
            type: 'array',
            default: [],
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['lunNumber', 'zvol'],
              properties: { lunNumber: lunNumberSchema, zvol: zvolSchema },
            },
          },
        },
      },
    },
  },
} as const;

export type IscsiSeed = FromSchema<typeof iscsiSeedSchema>;
