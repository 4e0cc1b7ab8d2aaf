import type { Transaction } from 'kysely';
import { ValidationError } from '#shared/errors/domain-errors';
import type { Database } from '#store/tables';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { hookProblems } from './hook-problems.ts';
import { normalizeHooks, type JailHooks } from '#shared/agent-api/jail-hooks';
import { requireJail, requireNoExclusiveTask, saveJailConfig } from './store.ts';
import type { JailUndo } from './outcomes.ts';

interface HooksRecord {
  ctId: number;
  hooks: JailHooks;
  taskId: number;
}

/**
 * E3: replaces all six phases. Checks (400 blank enabled script, 404, 409 busy), persists and plans the task
 * in the caller's transaction; the agent writes the hook scripts and `exec.<phase> +=` lines, so the change
 * takes effect on the jail's next start/stop (a running jail is not restarted).
 */
export async function setLifecycleHooks(trx: Transaction<Database>, enqueue: Enqueue, ctid: number, hooks: JailHooks): Promise<HooksRecord> {
  const problems = hookProblems(hooks);
  if (problems.length) throw new ValidationError(problems);
  const jail = await requireJail(trx, ctid);
  await requireNoExclusiveTask(trx, ctid);
  const next = normalizeHooks(hooks);
  await saveJailConfig(trx, ctid, { ...jail.config, hooks: next });
  const task = await enqueue({
    kind: 'jail.apply-hooks',
    nodeId: jail.node_id,
    resource: resourceKey.jail(ctid),
    payload: { ctid, name: jail.name, hooks: next },
    undo: { hooks: jail.config.hooks } satisfies JailUndo,
  });
  return { ctId: ctid, hooks: next, taskId: task.id };
}
