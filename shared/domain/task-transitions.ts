import type { Kysely } from 'kysely';
import type { Database, Db } from '#store/tables';
import * as lifecycle from '#shared/jobs/lifecycle';
import * as start from '#shared/jobs/start';
import * as cancel from '#shared/jobs/cancel';
import * as sweeper from '#shared/jobs/sweeper';
import type { FinishReport } from '#shared/agent-api/reports';
import { applyTaskOutcome } from './task-outcomes.ts';

/**
 * The task transitions (shared/jobs) with every kind's outcome bound (./task-outcomes.ts): what the endpoints,
 * the sweep and the tests call, so no caller can start, end or sweep a task without its kind's outcome.
 */

/** queued → running for the agent of `nodeId` (or superseded, or told to wait): shared/jobs/start.ts. */
export const startTask = (trx: Db, nodeId: string, taskId: number) => start.startTask(trx, nodeId, taskId, applyTaskOutcome);

/** running → success | failed | cancelled as the agent reports it, its result checked against its kind's schema. */
export const finishTask = (trx: Db, nodeId: string, taskId: number, report: FinishReport) =>
  lifecycle.finishTask(trx, nodeId, taskId, report, applyTaskOutcome);

/** At agent start: the node's `running` tasks become `interrupted`. */
export const interruptStaleTasks = (trx: Db, nodeId: string) => lifecycle.interruptStaleTasks(trx, nodeId, applyTaskOutcome);

/** At agent start: the cancels its previous run did not carry out, for kinds it can undo after a restart. */
export const pendingCancels = (db: Db, nodeId: string) => lifecycle.pendingCancels(db, nodeId);

/** An operator's cancellation: a queued task ends at once, a running one is asked to stop. */
export const cancelTask = (trx: Db, taskId: number, by: string) => cancel.cancelTask(trx, taskId, by, applyTaskOutcome);

/** Re-sends unsent tasks, fails those sent too often, interrupts the running tasks of silent nodes. */
export const sweepTasks = (db: Kysely<Database>, options: Omit<sweeper.SweepOptions, 'applyOutcome'> = {}) =>
  sweeper.sweepTasks(db, { ...options, applyOutcome: applyTaskOutcome });
