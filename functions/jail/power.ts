import spec from '#spec/jail/power';
import { endpoint } from '#http/endpoint';
import { acceptPower } from '#http/accept-power';
import { checkJailPower, planJailPower } from '#domain/jails/power';
import type { Input } from './power.schema.ts';

/** 202 with the task (agent/jobs/jail-power.ts runs jail -c/-r), or 200 when the jail is already so. */
export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  acceptPower(ctx, 'jail_power_queued', path.ctid, {
    precheck: (db) => checkJailPower(db, path.ctid, body.action),
    plan: (trx) => planJailPower(trx, path.ctid, body.action),
  }),
);
