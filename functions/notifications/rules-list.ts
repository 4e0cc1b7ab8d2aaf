import spec from '#spec/notifications/rules-list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { rulesAndTemplates } from '#domain/notifications/rules';

export const handler = endpoint(spec, async (_input, { db }) => ok('notification_rules_listed', await rulesAndTemplates(db)));
