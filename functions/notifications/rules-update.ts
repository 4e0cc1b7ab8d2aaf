import spec from '#spec/notifications/rules-update';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { updateRule } from '#domain/notifications/rule-edit';
import type { Input } from './rules-update.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, { db }) => ok('notification_rule_updated', await updateRule(db, path.id, body)));
