import spec from '#spec/zfs/dashboard-history';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { invalid } from '#shared/errors/domain-errors';
import { readHistory } from '#domain/telemetry/history';
import type { Input } from './dashboard-history.schema.ts';

/** GET /api/zfs/dashboard/history: semantics in shared/domain/telemetry/history.ts (readHistory). */
export const handler = endpoint<Input>(spec, async ({ query }, { db }) => {
  if (query.to <= query.from) throw invalid('validation_failed', 'query.to must be after query.from');
  return ok('dashboard_history', await readHistory(db, { ...query, points: query.points ?? 360 }));
});
