import type { Selectable } from 'kysely';
import { conflict, notFound } from '#shared/errors/domain-errors';
import type { GuestsTable, Db } from '#store/tables';
import { ACTIVE_STATUSES } from '#shared/agent-api/task-status';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { activeExclusiveTask } from '#shared/jobs/tasks';
import { noHooks } from '#shared/agent-api/jail-hooks';
import type { JailConfig } from './types.ts';

export interface JailRow extends Omit<Selectable<GuestsTable>, 'config'> {
  config: JailConfig;
}

/** A row's config with defaults for what an older or hand-written row lacks. */
export function jailConfigOf(raw: unknown): JailConfig {
  const c = (raw ?? {}) as Partial<JailConfig>;
  return {
    dataset: c.dataset ?? null,
    path: c.path ?? '',
    hostname: c.hostname ?? '',
    jid: c.jid ?? null,
    hooks: c.hooks ?? noHooks(),
    cores: c.cores ?? null,
    cpuSet: c.cpuSet ?? [],
    memoryBytes: c.memoryBytes ?? 0,
    host: c.host as JailConfig['host'],
  };
}

/** The jail with this CTID, or 404 `jail_not_found`. */
export async function requireJail(db: Db, ctid: number): Promise<JailRow> {
  const row = await db.selectFrom('guests').selectAll().where('id', '=', ctid).where('type', '=', 'jail').executeTakeFirst();
  if (!row) throw notFound('jail_not_found', `jail ${ctid} does not exist`);
  return { ...row, config: jailConfigOf(row.config) };
}

/** 409 `jail_busy` while an exclusive task (migration) holds the jail: its host and owner are about to change. */
export async function requireNoExclusiveTask(db: Db, ctid: number): Promise<void> {
  const t = await activeExclusiveTask(db, resourceKey.jail(ctid));
  if (t) throw conflict('jail_busy', `jail ${ctid} is busy: task ${t.id} (${t.kind}) is ${t.status}`);
}

/** The jail's oldest queued or running task, if any. */
export const activeJailTask = (db: Db, ctid: number) =>
  db
    .selectFrom('tasks')
    .select(['id', 'kind', 'status'])
    .where('resource', '=', resourceKey.jail(ctid))
    .where('status', 'in', ACTIVE_STATUSES)
    .orderBy('id')
    .executeTakeFirst();

/** 409 `jail_busy` while any task is queued or running on the jail (E20 needs it at rest). */
export async function requireNoActiveTask(db: Db, ctid: number): Promise<void> {
  const t = await activeJailTask(db, ctid);
  if (t) throw conflict('jail_busy', `jail ${ctid} has an active task: task ${t.id} (${t.kind}) is ${t.status}`);
}

export async function saveJailConfig(trx: Db, ctid: number, config: JailConfig): Promise<void> {
  await trx
    .updateTable('guests')
    .set({ config: JSON.stringify(config), updated_at: new Date() })
    .where('id', '=', ctid)
    .execute();
}
