import spec from '#spec/jail/migrate';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { migrationResult, planMigration } from '#domain/jails/migrate';
import type { Input } from './migrate.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  acceptTask(ctx, {
    message: 'jail_migration_queued',
    plan: (trx) => planMigration(trx, path.ctid, body?.targetNodeUuid),
    data: (task) => migrationResult(task),
  }),
);
