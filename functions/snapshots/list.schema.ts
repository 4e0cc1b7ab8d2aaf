import type { EndpointInput, EndpointSchema } from '#http/spec';
import { guestPath, guestSnapshotsSchema } from './responses.ts';

export const schema = {
  summary: "A guest's datasets and their snapshots (oldest first), with holds, clones and whether a backup job owns one",
  role: 'viewer',
  method: 'GET',
  route: '/api/guests/{guestType}/{guestId}/snapshots',
  path: guestPath,
  responses: { 200: 'snapshots_listed', 404: 'jail_not_found | vm_not_found' },
  data: guestSnapshotsSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
