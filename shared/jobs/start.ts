import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import type { TaskRow, Db } from '#store/tables';
import { afterTaskEnded, nodeTask, type TaskOutcome } from './lifecycle.ts';
import { backupPeerId, isTaskKind, taskKinds, type PeerRef, type TaskKind } from '#shared/agent-api/task-kinds';
import { toTaskView } from './tasks.ts';
import type { PeerHost, StartAnswer, Work } from '#shared/agent-api/tasks';

export type { PeerHost, StartAnswer, Work } from '#shared/agent-api/tasks';

/**
 * The hosts a task reaches over SSH (its kind's `peers`): an SSH endpoint or a member node as the payload pins it,
 * or member nodes as they registered.
 */
async function peersOf(db: Db, task: TaskRow): Promise<PeerHost[]> {
  const refs: PeerRef[] = isTaskKind(task.kind) ? (taskKinds[task.kind].peers?.(task.payload) ?? []) : [];
  const ssh: PeerHost[] = refs.flatMap((r) =>
    r.kind === 'ssh'
      ? [{ nodeId: backupPeerId(r), address: r.host, port: r.port, user: r.user, hostKeys: r.hostKeys }]
      : r.kind === 'planned'
        ? [{ nodeId: r.nodeId, address: r.address, hostKeys: r.hostKeys }]
        : [],
  );
  const ids = refs.flatMap((r) => (r.kind === 'node' ? [r.nodeId] : []));
  if (!ids.length) return ssh;
  const rows = await db.selectFrom('nodes').select(['id', 'ip', 'ssh_host_keys']).where('id', 'in', ids).execute();
  return [...ssh, ...rows.map((r) => ({ nodeId: r.id, address: r.ip, hostKeys: Array.isArray(r.ssh_host_keys) ? r.ssh_host_keys : [] }))];
}

/** The newest task of the same node, resource and configuration kind that has started (or finished) after this one. */
async function newerStarted(db: Db, task: TaskRow) {
  return db
    .selectFrom('tasks')
    .select(['id', 'status', 'payload', 'error'])
    .where('node_id', '=', task.node_id)
    .where('resource', '=', task.resource)
    .where('kind', '=', task.kind)
    .where('id', '>', task.id)
    .where('started_at', 'is not', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}
type Newer = NonNullable<Awaited<ReturnType<typeof newerStarted>>>;

/**
 * Ends a queued configuration task that a newer one of its resource overtook: it must never reach the host.
 * When the newer task applied the very same configuration (typically the re-application at agent start of a
 * change made while the agent was down), this task's change is in effect exactly when that one's is: it ends
 * as that one did — `success` (no failure, no notification), or `failed` with its error. Otherwise a newer
 * configuration replaced it: `failed` "superseded by task N".
 */
async function supersede(db: Db, task: TaskRow, by: Newer, applyOutcome: TaskOutcome): Promise<TaskRow | undefined> {
  const same = isDeepStrictEqual(by.payload, task.payload);
  const fields =
    same && by.status === 'success'
      ? { status: 'success' as const, error: '', phase: 'done', progress: 100, output: `applied by task ${by.id}, which set the same configuration\n` }
      : same
        ? {
            status: 'failed' as const,
            error: `superseded by task ${by.id}, which set the same configuration and ended ${by.status}: ${by.error}`,
            phase: 'failed',
          }
        : { status: 'failed' as const, error: `superseded by task ${by.id}`, phase: 'failed' };
  const done = await db
    .updateTable('tasks')
    .set({ ...fields, finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where('id', '=', task.id)
    .where('status', '=', 'queued')
    .returningAll()
    .executeTakeFirst();
  if (done) await afterTaskEnded(db, done, applyOutcome);
  return done;
}

const answer = (run: boolean, reason: string, task: TaskRow, work?: Work): StartAnswer => ({
  run,
  reason,
  attempt: task.attempts,
  task: toTaskView(task),
  ...(work ? { work } : {}),
});

/** Another task of the same resource running on the node (a resource's tasks run one at a time). */
const runningOfResource = (trx: Db, task: TaskRow) =>
  trx
    .selectFrom('tasks')
    .select('id')
    .where('resource', '=', task.resource)
    .where('node_id', '=', task.node_id)
    .where('status', '=', 'running')
    .where('id', '!=', task.id)
    .orderBy('id')
    .executeTakeFirst();

/**
 * Claims a task for the agent of `nodeId` (403 for another node's task, 404 for none): queued → running,
 * attempts + 1, idempotent by id. A configuration task overtaken by a newer one of the same resource and
 * kind (re-sent late, delivered out of order, or re-applied at agent start) never runs: it ends as described
 * at `supersede`, once the newer one has ended; a
 * task whose resource has another task running on the node stays queued and is told to wait for it.
 */
export async function startTask(trx: Db, nodeId: string, taskId: number, applyOutcome: TaskOutcome): Promise<StartAnswer> {
  const task = await nodeTask(trx, nodeId, taskId);
  if (task.status !== 'queued') return answer(false, `task ${taskId} is already ${task.status}`, task);
  if (isTaskKind(task.kind) && taskKinds[task.kind].configuration) {
    const newer = await newerStarted(trx, task);
    // how this one ends depends on how the newer one does: wait for it
    if (newer?.status === 'running') {
      return {
        ...answer(false, `task ${newer.id} of ${task.resource} is running; task ${taskId} waits for it`, task),
        waitFor: { taskId: newer.id, resource: task.resource },
      };
    }
    const ended = newer === undefined ? undefined : await supersede(trx, task, newer, applyOutcome);
    if (ended) return answer(false, ended.error || `task ${taskId} ended ${ended.status}: task ${newer!.id} applied the same configuration`, ended);
  }
  // The queue keeps a resource's tasks in order only by the message group id, which whoever can send to the
  // queue chooses: the store, not the message, decides that this task waits for the one running.
  const running = await runningOfResource(trx, task);
  if (running)
    return {
      ...answer(false, `task ${running.id} of ${task.resource} is running; task ${taskId} waits for it`, task),
      waitFor: { taskId: running.id, resource: task.resource },
    };
  const started = await trx
    .updateTable('tasks')
    .set({ status: 'running', attempts: sql<number>`attempts + 1`, phase: 'started', progress: 0, started_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where('id', '=', taskId)
    .where('status', '=', 'queued')
    .returningAll()
    .executeTakeFirstOrThrow();
  // what a start changes in the store (an E15 restore's backup event becomes running)
  await applyOutcome(trx, started);
  const work: Work = { kind: started.kind as TaskKind, payload: started.payload as Work['payload'], peers: await peersOf(trx, started) };
  return answer(true, 'started', started, work);
}
