import spec from '#spec/zfs/dashboard-history-delta';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { dashboardDelta } from '#domain/telemetry/dashboard';
import type { Input } from './dashboard-history-delta.schema.ts';

/** E14: semantics in shared/domain/telemetry/delta.ts (readDelta). */
export const handler = endpoint<Input>(spec, async ({ query }, { db }) => ok('dashboard_history_delta', await dashboardDelta(db, query)));
