import type { AuditView } from '#domain/audit/list';
import { describes } from './same.ts';
import { isoTime } from './time.ts';

/** One row of the audit log as `GET /api/audit` shows it. */
export const auditViewSchema = describes<AuditView>()({
  title: 'AuditEntry',
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    at: isoTime,
    /** null for a caller without a valid token */
    tokenId: { type: ['integer', 'null'] },
    tokenName: { type: 'string' },
    role: { type: 'string' },
    sourceIp: { type: 'string' },
    method: { type: 'string' },
    /** the route template (`/api/jail/{ctid}/migrate`) */
    route: { type: 'string' },
    resource: { type: 'string' },
    /** the HTTP status answered; null while the request that committed the change has not answered yet */
    status: { type: ['integer', 'null'] },
    taskId: { type: ['integer', 'null'] },
    requestId: { type: 'string' },
  },
  required: ['id', 'at', 'tokenId', 'tokenName', 'role', 'sourceIp', 'method', 'route', 'resource', 'status', 'taskId', 'requestId'],
  additionalProperties: false,
});
