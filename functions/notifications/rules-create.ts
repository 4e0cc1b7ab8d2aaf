import spec from '#spec/notifications/rules-create';
import { endpoint } from '#http/endpoint';
import { created } from '#http/envelope';
import { createRule } from '#domain/notifications/rule-edit';
import type { Input } from './rules-create.schema.ts';

export const handler = endpoint<Input>(spec, async ({ body }, { db }) => created('notification_rule_created', await createRule(db, body)));
