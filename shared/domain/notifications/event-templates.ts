import type { Db } from '#store/tables';

/**
 * The events the control plane itself raises, as rule templates: the task events (matched by task kind and
 * node, no targets) and the kinds raised by the task and node code. A store need not be seeded for an operator
 * to write a rule on them: the template is added when a rule first names it. A seed may relabel them.
 */
const BUILT_IN_TEMPLATES = [
  {
    key: 'task.failed',
    label: 'Task failed (event)',
    description: 'A task ended failed or interrupted; match by task kind and node',
    target_type: 'task_event',
  },
  { key: 'task.succeeded', label: 'Task succeeded (event)', description: 'A task ended successfully; match by task kind and node', target_type: 'task_event' },
  { key: 'task_failed', label: 'Task failed', description: 'A task on a node ended failed', target_type: 'node' },
  { key: 'task_interrupted', label: 'Task interrupted', description: 'A task on a node was cut off (agent restart, silent node)', target_type: 'node' },
  { key: 'node_offline', label: 'Node offline', description: 'A member node was not heard from for three heartbeats', target_type: 'node' },
] as const;

/** Adds the built-in template `key` if it is one and missing (in the caller's transaction). */
export async function ensureBuiltInTemplate(trx: Db, key: string): Promise<void> {
  const t = BUILT_IN_TEMPLATES.find((x) => x.key === key);
  if (!t) return;
  await trx
    .insertInto('notification_templates')
    .values({ ...t, default_config: '{}' })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}
