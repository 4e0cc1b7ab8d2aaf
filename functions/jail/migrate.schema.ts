import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { jailMigrationSchema } from '#http/responses/jail';

export const schema = {
  operation: 'E20',
  summary: 'Queue the migration of a jail to another cluster node (default: the online member with the fewest guests)',
  role: 'operator',
  method: 'POST',
  route: '/api/jail/{ctid}/migrations',
  path: pathId('ctid'),
  body: { type: 'object', properties: { targetNodeUuid: nodeIdSchema }, additionalProperties: false },
  responses: {
    202: 'jail_migration_queued',
    400: 'validation_failed',
    404: 'jail_not_found / cluster_node_not_found',
    409: 'jail_busy / guest_id_conflict / node_not_member',
    503: 'node_offline / no_migration_target',
  },
  data: jailMigrationSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
