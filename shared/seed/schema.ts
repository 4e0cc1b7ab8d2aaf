import type { FromSchema } from 'json-schema-to-ts';
import { BACKUP_EVENT_STATUSES } from '../domain/backups/events.ts';
import { RETENTION_MAX, RETENTION_MIN } from '../domain/backups/rules.ts';
import { backupTargetSchema } from '../domain/backups/target-input.ts';
import { NOTIFICATION_SCOPES, NOTIFICATION_SEVERITIES } from '../domain/notifications/notifications.ts';
import { NOTIFICATION_RULE_KINDS } from '../domain/notifications/rules.ts';
import { hostSeedSchema } from './host.schema.ts';
import { NODE_ID_PATTERN } from './node-id.ts';
// iSCSI (E13)
import { iscsiSeedSchema } from './iscsi.schema.ts';
import { certificatesSeedSchema } from './certificates.schema.ts';

/**
 * The seed file format (README.md beside this file). This object is the source of truth: the loader
 * validates with it, `Seed` is derived from it, and `seed.schema.json` is written from it
 * (`npm run seed -- --write-schema`; a unit test fails when the two differ).
 */

/** An absolute ISO 8601 date-time, `now`, or a time relative to loading: `-90s`, `-15m`, `-2h`, `-7d`. */
export const TIMESTAMP_PATTERN = '^(now|-[0-9]{1,6}[smhd]|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2}))$';
const timestamp = {
  type: 'string',
  pattern: TIMESTAMP_PATTERN,
  description: 'ISO 8601 date-time with zone, "now", or relative to load time: -90s, -15m, -2h, -7d',
} as const;
const key = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' } as const;
const label = { type: 'string', minLength: 1, maxLength: 200 } as const;
export { NODE_ID_PATTERN };
const nodeId = { type: 'string', pattern: NODE_ID_PATTERN } as const;
/** the spec types rule and template configs as strings; an object is stored as its JSON text */
const config = { type: ['string', 'object'] } as const;

export const seedSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://hostmgr.invalid/seed.schema.json',
  title: 'hostmgr seed file',
  description: 'State loaded into the store by `npm run seed -- FILE.json` or `HM_SEED=FILE.json npm start`. Every section is optional.',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'editors: point at seed.schema.json' },
    nodes: {
      description: 'cluster nodes, upserted by id',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name'],
        properties: {
          id: { ...nodeId, description: "the host's UUID" },
          name: { type: 'string', minLength: 1, maxLength: 253 },
          ip: { type: 'string', maxLength: 45, default: '' },
          status: { type: 'string', enum: ['pending', 'member'], default: 'member' },
          lastSeenAt: timestamp,
        },
      },
    },
    clusterNotes: {
      description: 'cluster notes, upserted by title',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title'],
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 200 },
          content: { type: 'string', maxLength: 65536, default: '' },
          createdAt: timestamp,
        },
      },
    },
    notifications: {
      description: 'notifications, upserted by (kind, title, nodeId)',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'title'],
        properties: {
          kind: key,
          title: label,
          body: { type: 'string', maxLength: 65536, default: '' },
          severity: { type: 'string', enum: NOTIFICATION_SEVERITIES, default: 'info' },
          scope: { type: 'string', enum: NOTIFICATION_SCOPES, default: 'global', description: 'E24 dismisses global ones; node ones need nodeId' },
          nodeId,
          createdAt: timestamp,
          dismissedAt: timestamp,
        },
      },
    },
    notificationTemplates: {
      description: 'notification templates, upserted by key',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'label', 'targetType'],
        properties: {
          key,
          label,
          description: { type: 'string', maxLength: 2000, default: '' },
          targetType: { ...key, description: 'rules of this template address the notificationTargets of this type' },
          defaultConfig: { ...config, default: '{}' },
        },
      },
    },
    notificationTargets: {
      description: 'what rules can address, by type (a pool, a node, a backup job …); upserted by (targetType, key)',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['targetType', 'key', 'label'],
        properties: {
          targetType: key,
          key: { type: 'string', minLength: 1, maxLength: 200 },
          label,
        },
      },
    },
    notificationRules: {
      description:
        'rules; auto ones upserted by (templateKey, targetKey), custom ones by (templateKey, targetKey, config). Synchronisation then adds auto rules for pairs that have none.',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['templateKey', 'targetKey'],
        properties: {
          templateKey: key,
          targetKey: { type: 'string', minLength: 1, maxLength: 200 },
          kind: { type: 'string', enum: NOTIFICATION_RULE_KINDS, default: 'custom' },
          active: { type: 'boolean', default: true },
          uiEnabled: { type: 'boolean', default: true },
          emailEnabled: { type: 'boolean', default: false },
          discordEnabled: { type: 'boolean', default: false },
          ntfyEnabled: { type: 'boolean', default: false },
          pushoverEnabled: { type: 'boolean', default: false },
          config: { ...config, description: "default: the template's defaultConfig" },
          deleted: { type: 'boolean', default: false, description: 'load as a tombstone (deleted; synchronisation leaves the pair alone)' },
        },
      },
    },
    backupJobs: {
      description: 'backup jobs, upserted by name',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'nodeId', 'sourceDataset', 'targetEndpoint'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          nodeId: { ...nodeId, description: 'the runner node' },
          mode: { type: 'string', minLength: 1, maxLength: 64, default: 'incremental' },
          sourceDataset: { type: 'string', minLength: 1, maxLength: 1024 },
          targetEndpoint: { type: 'string', minLength: 1, maxLength: 1024 },
          schedule: { type: 'string', maxLength: 200, default: '' },
          enabled: { type: 'boolean', default: true },
          // backup jobs that run: a job with a target and a schedule is run by the scheduler
          target: {
            ...backupTargetSchema,
            description:
              "where the job's snapshots are received: another member node's dataset (nodeId) or an SSH endpoint with its pinned host key (ssh); without one the job is display-only",
            properties: { ...backupTargetSchema.properties, nodeId: { ...nodeId, description: 'a member node other than the runner' } },
          },
          retention: { type: 'integer', minimum: RETENTION_MIN, maximum: RETENTION_MAX, default: 7, description: 'job snapshots kept on each side' },
        },
      },
    },
    backupEvents: {
      description: "backup events of the jobs; a job's events are loaded only while it has none in the store (so loading twice adds nothing)",
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['job', 'status'],
        properties: {
          job: { type: 'string', minLength: 1, maxLength: 200, description: 'name of a backup job (in this file or the store)' },
          status: { type: 'string', enum: BACKUP_EVENT_STATUSES },
          output: { type: 'string', maxLength: 1048576, default: '' },
          error: { type: 'string', maxLength: 65536, default: '' },
          mode: { type: 'string', minLength: 1, maxLength: 64, description: "default: the job's" },
          sourceDataset: { type: 'string', minLength: 1, maxLength: 1024, description: "default: the job's" },
          targetEndpoint: { type: 'string', minLength: 1, maxLength: 1024, description: "default: the job's" },
          createdAt: { ...timestamp, description: 'default: now' },
          startedAt: { ...timestamp, description: 'default: createdAt, or none while queued' },
          completedAt: { ...timestamp, description: 'default: startedAt once finished (success, failed, interrupted)' },
        },
      },
    },
    // iSCSI (E13)
    iscsi: iscsiSeedSchema,
    // managed TLS certificates
    certificates: certificatesSeedSchema,
    // firewall NAT (E18): network objects, NAT rules and the WireGuard clients whose FIB an egress interface uses
    networkObjects: {
      description: 'network objects (named sets of addresses, CIDRs and host names), upserted by name',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          description: { type: 'string', maxLength: 2000, default: '' },
          entries: {
            type: 'array',
            maxItems: 4096,
            items: { type: 'string', minLength: 1, maxLength: 253 },
            default: [],
            description: 'IP addresses, CIDRs or host names',
          },
          resolutions: {
            type: 'array',
            maxItems: 4096,
            items: { type: 'string', minLength: 1, maxLength: 64 },
            default: [],
            description: 'the addresses the host names among entries last resolved to',
          },
        },
      },
    },
    natRules: {
      description: 'firewall NAT rules of the nodes, upserted by (nodeId, name)',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['nodeId', 'name', 'type'],
        properties: {
          nodeId: { ...nodeId, description: 'the node whose firewall has the rule (in this file or the store)' },
          name: { type: 'string', minLength: 1, maxLength: 200 },
          description: { type: 'string', maxLength: 2000, default: '' },
          enabled: { type: 'boolean', default: true },
          type: { type: 'string', enum: ['snat', 'dnat', 'binat'] },
          family: { type: 'string', enum: ['inet', 'inet6', 'any'], default: 'inet' },
          source: { type: 'string', maxLength: 64, default: '', description: "an IP address or CIDR of the rule's family; '' for none" },
          sourceObject: { type: 'string', minLength: 1, maxLength: 200, description: 'name of a network object (in this file or the store)' },
          egressInterfaces: { type: 'array', maxItems: 64, items: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,16}$' }, default: [] },
          policyRouting: { type: 'boolean', default: false },
          translateTo: { type: 'string', maxLength: 64, default: '' },
        },
      },
    },
    wireguardClients: {
      description: "WireGuard clients of the nodes (an egress interface routes in its client's FIB), upserted by (nodeId, interface)",
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['nodeId', 'name', 'interface'],
        properties: {
          nodeId: { ...nodeId, description: 'the node (in this file or the store)' },
          name: { type: 'string', minLength: 1, maxLength: 200 },
          interface: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,16}$' },
          fib: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
        },
      },
    },
    hosts: {
      description: 'simulated hosts by node id, read by the host simulator (simulator); ignored by the store loader',
      type: 'object',
      propertyNames: nodeId,
      additionalProperties: { $ref: '#/$defs/host' },
    },
  },
  $defs: { host: hostSeedSchema },
} as const;

/** A validated seed, defaults applied. */
export type Seed = FromSchema<typeof seedSchema>;
