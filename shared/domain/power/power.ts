import { sql } from 'kysely';
import type { Db, TaskRow } from '#store/tables';
import type { TaskOf } from '#shared/jobs/lifecycle';

/**
 * Power actions on a guest (start, stop, restart; a VM also poweroff). Each is a task on the guest's node,
 * exclusive on the guest (a second one, or one beside a migration, is 409). A guest already in the wanted
 * state is answered at once (200) with no task: {@link PowerUnchanged}.
 */
export const JAIL_POWER_ACTIONS = ['start', 'stop', 'restart'] as const;
export const VM_POWER_ACTIONS = ['start', 'stop', 'restart', 'poweroff'] as const;
export type JailPowerAction = (typeof JAIL_POWER_ACTIONS)[number];
export type VmPowerAction = (typeof VM_POWER_ACTIONS)[number];

/** What a power request answers: the guest, the action, whether a task was queued for it, and the state the store holds. */
export interface PowerAnswer {
  guestId: number;
  action: string;
  /** `queued`: the task does it (202); `unchanged`: the guest was already so, nothing queued (200) */
  outcome: 'queued' | 'unchanged';
  /** the state as the store holds it when answering (a queued task changes it when it ends) */
  state: string;
  taskId: number | null;
}

/**
 * Thrown by a power request's check when the guest is already in the wanted state; the endpoint answers 200
 * with `answer` (no task, no transaction held). Not an error: a control flow out of the 202 path.
 */
export class PowerUnchanged extends Error {
  constructor(
    readonly code: string,
    readonly answer: PowerAnswer,
  ) {
    super(code);
    this.name = 'PowerUnchanged';
  }
}

export const queuedAnswer = (task: Pick<TaskRow, 'id' | 'payload'>, guestId: number, state: string): PowerAnswer => ({
  guestId,
  action: (task.payload as { action: string }).action,
  outcome: 'queued',
  state,
  taskId: task.id,
});

/**
 * A power task that succeeded leaves the guest in the state its agent found after acting: the store says so
 * at once (the next inventory report says the same). Failed or cancelled: nothing was persisted by the
 * request, so nothing is put back; the host's next report is the truth.
 */
async function setGuestState(trx: Db, task: Pick<TaskRow, 'status' | 'node_id'>, type: 'jail' | 'vm', id: number, state: string | undefined) {
  if (task.status !== 'success' || state === undefined) return;
  await trx
    .updateTable('guests')
    .set({ state, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('type', '=', type)
    .where('node_id', '=', task.node_id)
    .execute();
}

export const applyJailPowerOutcome = (trx: Db, task: TaskOf<'jail.power'>) => setGuestState(trx, task, 'jail', task.payload.ctid, task.result?.state);
export const applyVmPowerOutcome = (trx: Db, task: TaskOf<'vm.power'>) => setGuestState(trx, task, 'vm', task.payload.rid, task.result?.state);
