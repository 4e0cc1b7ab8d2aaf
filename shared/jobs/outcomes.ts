import type { Kysely, Transaction } from 'kysely';
import type { Database, TaskRow } from '#store/tables';
import { completeMigration } from '#domain/jails/migrate';
import { applyVmTaskOutcome } from '#domain/vms/outcomes';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * What the store learns from a task's outcome, in the transaction that records it (finishTask): e.g. a
 * successful jail migration (E20) moves the guest to its target node. A capability adds its effect here.
 */
const effects: Array<(trx: Db, task: TaskRow) => Promise<void>> = [
  completeMigration, // jail.migrate success: the guest belongs to the target node
  applyVmTaskOutcome, // vm.*: a failure re-projects the host's last report; a VNC password leaves the payload
];

export async function applyTaskOutcome(trx: Db, task: TaskRow): Promise<void> {
  for (const effect of effects) await effect(trx, task);
}
