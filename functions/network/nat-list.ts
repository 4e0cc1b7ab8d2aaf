import spec from '#spec/network/nat-list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { listNatRules } from '#domain/network/nat-rules';
import type { Input } from './nat-list.schema.ts';

export const handler = endpoint<Input>(spec, async (_input, { db }) => ok('nat_rules_listed', await listNatRules(db)));
