import spec from '#spec/notifications/rules-bulk-delete';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { bulkDeleteRules } from '#domain/notifications/rules';
import type { Input } from './rules-bulk-delete.schema.ts';

/** E23. */
export const handler = endpoint<Input>(spec, async ({ body }, { db }) => ok('notification_rules_deleted', await bulkDeleteRules(db, body.ids)));
