import { ValidationError } from '#shared/errors/domain-errors';
import type { Selectable } from 'kysely';
import type { AuditLogTable, Db } from '#store/tables';
import { iso, offsetOf, type PageRequest } from '#store/paging';

interface AuditFilter extends PageRequest {
  tokenId?: number;
  /** rows whose resource contains this text */
  resource?: string;
  /** the route template, exactly (`/api/jail/{ctid}/migrate`) */
  route?: string;
  /** an exact status (`403`) or a class (`4xx`) */
  outcome?: string;
  from?: string;
  to?: string;
}

/** One audit row as the API shows it (camelCase, like every answer of the API). */
export interface AuditView {
  id: number;
  at: string;
  tokenId: number | null;
  tokenName: string;
  role: string;
  sourceIp: string;
  method: string;
  route: string;
  resource: string;
  status: number | null;
  taskId: number | null;
  requestId: string;
}

const toAuditView = (r: Selectable<AuditLogTable>): AuditView => ({
  id: Number(r.id),
  at: iso(r.at)!,
  tokenId: r.token_id,
  tokenName: r.token_name,
  role: r.role,
  sourceIp: r.source_ip,
  method: r.method,
  route: r.route,
  resource: r.resource,
  status: r.status,
  taskId: r.task_id,
  requestId: r.request_id,
});

/** The form of `from` and `to`: an ISO 8601 date-time with its zone (`2026-01-31T12:00:00Z`, `…+02:00`). */
export const TIME_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$';

/** The form of `outcome`: an exact status (`403`) or a class (`4xx`). */
export const OUTCOME_PATTERN = '^[1-5]([0-9]{2}|xx)$';

/** `outcome` as a range of statuses: `404` is [404, 404], `4xx` is [400, 499]. */
function outcomeRange(outcome: string): [number, number] {
  const hundreds = Number(outcome[0]) * 100;
  return outcome.endsWith('xx') ? [hundreds, hundreds + 99] : [Number(outcome), Number(outcome)];
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The audit log, newest first, filtered by token, resource, route, outcome and time range (`from` inclusive, `to` exclusive). */
export async function listAudit(db: Db, f: AuditFilter): Promise<{ data: AuditView[]; total: number }> {
  const bad = (['from', 'to'] as const).filter((k) => f[k] !== undefined && Number.isNaN(new Date(f[k]!).getTime()));
  if (bad.length) throw new ValidationError(bad.map((k) => ({ field: `query.${k}`, problem: 'is not a valid date-time' })));
  if (f.from && f.to && new Date(f.from) >= new Date(f.to)) throw new ValidationError([{ field: 'query.to', problem: 'must be later than query.from' }]);
  let q = db.selectFrom('audit_log');
  if (f.tokenId !== undefined) q = q.where('token_id', '=', f.tokenId);
  if (f.resource) q = q.where('resource', 'like', `%${escapeLike(f.resource)}%`);
  if (f.route) q = q.where('route', '=', f.route);
  if (f.outcome) {
    const [lo, hi] = outcomeRange(f.outcome);
    q = q.where('status', '>=', lo).where('status', '<=', hi);
  }
  if (f.from) q = q.where('at', '>=', new Date(f.from));
  if (f.to) q = q.where('at', '<', new Date(f.to));
  const [{ n }] = await q.select((eb) => eb.fn.countAll<number>().as('n')).execute();
  const rows = await q.selectAll().orderBy('id', 'desc').limit(f.size).offset(offsetOf(f)).execute();
  return { data: rows.map(toAuditView), total: Number(n) };
}
