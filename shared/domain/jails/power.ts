import type { Transaction } from 'kysely';
import { conflict, unavailable } from '#shared/errors/domain-errors';
import type { Database, Db } from '#store/tables';
import { activeExclusiveTask, type TaskPlan } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { requireNode } from '#domain/nodes/require-node';
import { PowerUnchanged, type JailPowerAction } from '#domain/power/power';
import { requireNoRestoreOf } from '#domain/power/restore-guard';
import { requireJail, type JailRow } from './store.ts';

/** The state a start or stop leaves a jail in; a restart ends running too. */
const wanted = (action: JailPowerAction) => (action === 'stop' ? 'stopped' : 'running');

/**
 * The checks that need no lock, before the transaction: 404; a jail the store already holds in the wanted
 * state answers at once (200, no task) — a restart always acts.
 */
export async function checkJailPower(db: Db, ctid: number, action: JailPowerAction): Promise<void> {
  const jail = await requireJail(db, ctid);
  if (action !== 'restart' && jail.state === wanted(action))
    throw new PowerUnchanged(`jail_already_${jail.state}`, { guestId: ctid, action, outcome: 'unchanged', state: jail.state, taskId: null });
}

/** 409 `jail_busy` while a migration or another power task holds the jail (both are exclusive on it). */
async function requireNotBusy(db: Db, jail: JailRow): Promise<void> {
  const t = await activeExclusiveTask(db, resourceKey.jail(jail.id));
  if (t) throw conflict('jail_busy', `jail ${jail.id} is busy: task ${t.id} (${t.kind}) is ${t.status}${t.kind === 'jail.migrate' ? ' (mid-migration)' : ''}`);
}

/**
 * Plans a jail's power task in the caller's transaction: the jail exists (404), no migration or power task
 * holds it (409), its node is online (503: a start queued for an absent agent would happen whenever it came
 * back). The hooks and limits are the host's conf: jail(8) runs them at the start and stop.
 */
export async function planJailPower(trx: Transaction<Database>, ctid: number, action: JailPowerAction): Promise<TaskPlan> {
  const jail = await requireJail(trx, ctid);
  await requireNotBusy(trx, jail);
  await requireNoRestoreOf(trx, 'jail', ctid);
  const node = await requireNode(trx, jail.node_id);
  if (!node.online) throw unavailable('node_offline', `jail ${ctid} is on node ${jail.node_id}, which is offline; retry when its agent reports again`);
  return { kind: 'jail.power', nodeId: jail.node_id, resource: resourceKey.jail(ctid), payload: { ctid, name: jail.name, action } };
}
