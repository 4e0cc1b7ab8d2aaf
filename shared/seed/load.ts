import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Kysely, Transaction } from 'kysely';
import { inTransaction } from '#store/tx';
import type { Database } from '#store/tables';
import { synchroniseRules } from '../domain/notifications/sync.ts';
import type { Seed } from './schema.ts';
import { seedTime } from './time.ts';
import { natNodeIds, natProblems, upsertNat, type NatSeedSummary } from './nat.ts';
import { SeedError, validateSeed } from './validate.ts';
// iSCSI (E13)
import { upsertIscsi } from './iscsi.ts';
import { upsertCertificates } from './certificates.ts';
import { targetColumns } from '#domain/backups/target';
import { checkTargetInput } from '#domain/backups/target-input';
import { nextRunAfter, scheduleProblem } from '#domain/backups/schedule';

export { SeedError } from './validate.ts';

/** The demo loaded by `npm start` into an empty store. */
export const DEMO_SEED = 'shared/seed/demo.json';

export interface SeedSummary extends NatSeedSummary {
  nodes: number;
  clusterNotes: number;
  notifications: number;
  notificationTemplates: number;
  notificationTargets: number;
  notificationRules: number;
  /** auto rules created by synchronisation after the load */
  rulesSynchronised: number;
  backupJobs: number;
  backupEvents: number;
  /** events not loaded because their job already had events */
  backupEventsSkipped: number;
}

type Trx = Transaction<Database>;
type Item<K extends keyof Seed> = NonNullable<Seed[K]> extends Array<infer T> ? T : never;
const configText = (c: string | object) => (typeof c === 'string' ? c : JSON.stringify(c));

/** Reads, parses and validates a seed file; every problem names the file and the field. */
export function readSeedFile(file: string): Seed {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new SeedError(file, [`cannot read the file: ${(err as Error).message}`]);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new SeedError(file, [`not valid JSON: ${(err as Error).message}`]);
  }
  return validateSeed(doc, file);
}

/** Paths of seed items that repeat an earlier item's natural key. */
function duplicates<T>(items: T[] | undefined, section: string, keyOf: (t: T) => string, field: string): string[] {
  const seen = new Map<string, number>();
  const out: string[] = [];
  (items ?? []).forEach((it, i) => {
    const k = keyOf(it);
    if (seen.has(k)) out.push(`${section}[${i}].${field}: repeats ${section}[${seen.get(k)}]`);
    else seen.set(k, i);
  });
  return out;
}

/**
 * Loads a validated seed in one transaction: references are checked first (against the seed and the store;
 * any problem → SeedError, nothing written), then each section is upserted by its natural key, rules are
 * synchronised, and events are added for jobs that have none yet. Loading the same file twice changes nothing.
 */
export async function loadSeed(db: Kysely<Database>, seed: Seed, source: string, now = new Date()): Promise<SeedSummary> {
  return inTransaction(db, async (trx) => {
    const problems: string[] = [];
    const time = (path: string, value: string | undefined): Date | undefined => {
      if (value === undefined) return undefined;
      try {
        return seedTime(value, now);
      } catch {
        problems.push(`${path}: not a valid date-time`);
        return now;
      }
    };
    problems.push(
      ...duplicates(seed.nodes, 'nodes', (n) => n.id, 'id'),
      ...duplicates(seed.clusterNotes, 'clusterNotes', (n) => n.title, 'title'),
      ...duplicates(seed.notificationTemplates, 'notificationTemplates', (t) => t.key, 'key'),
      ...duplicates(seed.notificationTargets, 'notificationTargets', (t) => `${t.targetType}\u0000${t.key}`, 'key'),
      ...duplicates(seed.backupJobs, 'backupJobs', (j) => j.name, 'name'),
      ...duplicates(seed.notifications, 'notifications', (n) => `${n.kind}\u0000${n.title}\u0000${n.nodeId ?? ''}`, 'title'),
      ...duplicates(seed.networkObjects, 'networkObjects', (o) => o.name, 'name'),
      ...duplicates(seed.natRules, 'natRules', (r) => `${r.nodeId}\u0000${r.name}`, 'name'),
      ...duplicates(seed.wireguardClients, 'wireguardClients', (c) => `${c.nodeId}\u0000${c.interface}`, 'interface'),
    );
    problems.push(...guestClashes(seed));
    const refs = await references(trx, seed);
    problems.push(...(await natProblems(trx, seed, refs.nodes)));
    seed.notifications?.forEach((n, i) => {
      if (n.scope === 'node' && !n.nodeId) problems.push(`notifications[${i}].nodeId: is required when scope is "node"`);
      if (n.nodeId && !refs.nodes.has(n.nodeId)) problems.push(`notifications[${i}].nodeId: node ${n.nodeId} is neither in this seed nor in the store`);
    });
    seed.backupJobs?.forEach((j, i) => {
      if (!refs.nodes.has(j.nodeId)) problems.push(`backupJobs[${i}].nodeId: node ${j.nodeId} is neither in this seed nor in the store`);
      if (j.target?.nodeId !== undefined && !refs.nodes.has(j.target.nodeId))
        problems.push(`backupJobs[${i}].target.nodeId: node ${j.target.nodeId} is neither in this seed nor in the store`);
      for (const p of j.target ? checkTargetInput(j.target, j.nodeId).problems : []) problems.push(`backupJobs[${i}].${p.field}: ${p.problem}`);
      if (j.target && j.schedule && scheduleProblem(j.schedule)) problems.push(`backupJobs[${i}].schedule: ${scheduleProblem(j.schedule)}`);
      if ((refs.storeJobs.get(j.name)?.length ?? 0) > 1)
        problems.push(`backupJobs[${i}].name: the store has several jobs named "${j.name}"; rename them first`);
    });
    seed.backupEvents?.forEach((e, i) => {
      if (!refs.jobs.has(e.job)) problems.push(`backupEvents[${i}].job: no backup job named "${e.job}" in this seed or the store`);
    });
    seed.notificationRules?.forEach((r, i) => {
      const type = refs.templates.get(r.templateKey)?.targetType;
      if (type === undefined) problems.push(`notificationRules[${i}].templateKey: no template "${r.templateKey}" in this seed or the store`);
      else if (!refs.targets.has(`${type}\u0000${r.targetKey}`))
        problems.push(`notificationRules[${i}].targetKey: no ${type} target "${r.targetKey}" in this seed or the store`);
    });
    // timestamps are checked before anything is written
    const times = {
      nodes: seed.nodes?.map((n, i) => time(`nodes[${i}].lastSeenAt`, n.lastSeenAt)),
      notes: seed.clusterNotes?.map((n, i) => time(`clusterNotes[${i}].createdAt`, n.createdAt)),
      notifications: seed.notifications?.map(
        (n, i) => [time(`notifications[${i}].createdAt`, n.createdAt), time(`notifications[${i}].dismissedAt`, n.dismissedAt)] as const,
      ),
      events: seed.backupEvents?.map(
        (e, i) =>
          [
            time(`backupEvents[${i}].createdAt`, e.createdAt),
            time(`backupEvents[${i}].startedAt`, e.startedAt),
            time(`backupEvents[${i}].completedAt`, e.completedAt),
          ] as const,
      ),
    };
    if (problems.length) throw new SeedError(source, problems);

    const summary: SeedSummary = {
      nodes: 0,
      clusterNotes: 0,
      notifications: 0,
      notificationTemplates: 0,
      notificationTargets: 0,
      notificationRules: 0,
      rulesSynchronised: 0,
      backupJobs: 0,
      backupEvents: 0,
      backupEventsSkipped: 0,
    };
    summary.nodes = await upsertNodes(trx, seed.nodes ?? [], times.nodes ?? [], now);
    Object.assign(summary, await upsertNat(trx, seed, now));
    summary.notificationTemplates = await upsertTemplates(trx, seed.notificationTemplates ?? []);
    summary.notificationTargets = await upsertTargets(trx, seed.notificationTargets ?? []);
    summary.notificationRules = await upsertRules(trx, seed.notificationRules ?? [], refs.templates, now);
    summary.rulesSynchronised = await synchroniseRules(trx);
    summary.clusterNotes = await upsertNotes(trx, seed.clusterNotes ?? [], times.notes ?? [], now);
    summary.notifications = await upsertNotifications(trx, seed.notifications ?? [], times.notifications ?? [], now);
    const jobIds = await upsertJobs(trx, seed.backupJobs ?? [], now);
    summary.backupJobs = seed.backupJobs?.length ?? 0;
    for (const [name, ids] of refs.storeJobs) if (!jobIds.has(name) && ids.length === 1) jobIds.set(name, ids[0]);
    [summary.backupEvents, summary.backupEventsSkipped] = await addEvents(trx, seed.backupEvents ?? [], times.events ?? [], jobIds, now);
    await claimSeededGuests(trx, seed, now);
    // iSCSI (E13): after the nodes
    await upsertIscsi(trx, seed.iscsi, source);
    // managed TLS certificates: after the nodes; a ready one's record comes from its file on the seeded host
    await upsertCertificates(trx, seed.certificates, (nodeId) => seed.hosts?.[nodeId]?.files, source);
    return summary;
  });
}

/** The guests (jails and VMs share one id space) each seeded host holds, by guest id, with their seed paths. */
function seededGuests(seed: Seed): Array<{ id: number; type: 'jail' | 'vm'; nodeId: string; path: string }> {
  return Object.entries(seed.hosts ?? {}).flatMap(([nodeId, h]) => [
    ...(h.jails ?? []).map((j, i) => ({ id: j.ctid, type: 'jail' as const, nodeId, path: `hosts["${nodeId}"].jails[${i}].ctid` })),
    ...(h.vms ?? []).map((v, i) => ({ id: v.rid, type: 'vm' as const, nodeId, path: `hosts["${nodeId}"].vms[${i}].rid` })),
  ]);
}

/**
 * Guest ids are unique across the cluster, so a seed may give each to one member's host only. A pending node's
 * host may report an id a member holds (or another pending host does): that is what E16 (cluster join) reports
 * as a conflict, so it is seedable, and such a host's guests claim nothing.
 */
function pendingHosts(seed: Seed): Set<string> {
  return new Set((seed.nodes ?? []).filter((n) => n.status === 'pending').map((n) => n.id));
}

function guestClashes(seed: Seed): string[] {
  const pending = pendingHosts(seed);
  const first = new Map<number, string>();
  const out: string[] = [];
  for (const g of seededGuests(seed).filter((x) => !pending.has(x.nodeId))) {
    const earlier = first.get(g.id);
    if (earlier) out.push(`${g.path}: guest id ${g.id} is also ${earlier}; guest ids (jail ctids and VM rids) are unique across the cluster`);
    else first.set(g.id, g.path);
  }
  return out;
}

/**
 * The seed says which node holds a guest: a guest row the store has on another node (from an earlier seed or
 * run) moves to the seeded member node, so its agent's report is not refused as a clash with a stale owner.
 */
async function claimSeededGuests(trx: Trx, seed: Seed, now: Date): Promise<void> {
  const pending = pendingHosts(seed);
  for (const g of seededGuests(seed).filter((x) => !pending.has(x.nodeId))) {
    await trx
      .updateTable('guests')
      .set({ node_id: g.nodeId, updated_at: now })
      .where('id', '=', g.id)
      .where('type', '=', g.type)
      .where('node_id', '!=', g.nodeId)
      .execute();
  }
}

interface References {
  nodes: Set<string>;
  templates: Map<string, { targetType: string; defaultConfig: string }>;
  targets: Set<string>;
  jobs: Set<string>;
  /** store job ids by name, for the names the seed mentions */
  storeJobs: Map<string, number[]>;
}

/** What the seed's references may point at: its own items plus what the store already holds. */
async function references(trx: Trx, seed: Seed): Promise<References> {
  const nodes = new Set((seed.nodes ?? []).map((n) => n.id));
  const wantedNodes = [...(seed.notifications ?? []).map((n) => n.nodeId), ...(seed.backupJobs ?? []).map((j) => j.nodeId), ...natNodeIds(seed)].filter(
    (id): id is string => !!id && !nodes.has(id),
  );
  if (wantedNodes.length) for (const r of await trx.selectFrom('nodes').select('id').where('id', 'in', wantedNodes).execute()) nodes.add(r.id);

  const templates = new Map<string, { targetType: string; defaultConfig: string }>();
  for (const t of await trx.selectFrom('notification_templates').select(['key', 'target_type', 'default_config']).execute())
    templates.set(t.key, { targetType: t.target_type, defaultConfig: t.default_config });
  for (const t of seed.notificationTemplates ?? []) templates.set(t.key, { targetType: t.targetType, defaultConfig: configText(t.defaultConfig) });
  const targets = new Set((seed.notificationTargets ?? []).map((t) => `${t.targetType}\u0000${t.key}`));
  for (const t of await trx.selectFrom('notification_targets').select(['target_type', 'key']).execute()) targets.add(`${t.target_type}\u0000${t.key}`);

  const names = [...new Set([...(seed.backupJobs ?? []).map((j) => j.name), ...(seed.backupEvents ?? []).map((e) => e.job)])];
  const storeJobs = new Map<string, number[]>();
  if (names.length) {
    for (const j of await trx.selectFrom('backup_jobs').select(['id', 'name']).where('name', 'in', names).orderBy('id').execute())
      storeJobs.set(j.name, [...(storeJobs.get(j.name) ?? []), j.id]);
  }
  const jobs = new Set([...(seed.backupJobs ?? []).map((j) => j.name), ...[...storeJobs].filter(([, ids]) => ids.length === 1).map(([n]) => n)]);
  return { nodes, templates, targets, jobs, storeJobs };
}

async function upsertNodes(trx: Trx, nodes: Item<'nodes'>[], seen: Array<Date | undefined>, now: Date): Promise<number> {
  for (const [i, n] of nodes.entries()) {
    const lastSeen = seen[i] ?? null;
    await trx
      .insertInto('nodes')
      .values({ id: n.id, name: n.name, ip: n.ip, status: n.status, last_seen_at: lastSeen, inventory: {} })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({ name: n.name, ip: n.ip, status: n.status, updated_at: now, ...(lastSeen ? { last_seen_at: lastSeen } : {}) }),
      )
      .execute();
  }
  return nodes.length;
}

async function upsertTemplates(trx: Trx, templates: Item<'notificationTemplates'>[]): Promise<number> {
  for (const t of templates) {
    const row = { label: t.label, description: t.description, target_type: t.targetType, default_config: configText(t.defaultConfig) };
    await trx
      .insertInto('notification_templates')
      .values({ key: t.key, ...row })
      .onConflict((oc) => oc.column('key').doUpdateSet(row))
      .execute();
  }
  return templates.length;
}

async function upsertTargets(trx: Trx, targets: Item<'notificationTargets'>[]): Promise<number> {
  for (const t of targets) {
    await trx
      .insertInto('notification_targets')
      .values({ target_type: t.targetType, key: t.key, label: t.label })
      .onConflict((oc) => oc.columns(['target_type', 'key']).doUpdateSet({ label: t.label }))
      .execute();
  }
  return targets.length;
}

async function upsertRules(trx: Trx, rules: Item<'notificationRules'>[], templates: References['templates'], now: Date): Promise<number> {
  for (const r of rules) {
    const config = r.config === undefined ? templates.get(r.templateKey)!.defaultConfig : configText(r.config);
    const values = {
      active: r.active,
      ui_enabled: r.uiEnabled,
      email_enabled: r.emailEnabled,
      discord_enabled: r.discordEnabled,
      ntfy_enabled: r.ntfyEnabled,
      pushover_enabled: r.pushoverEnabled,
      config,
    };
    let existing = trx
      .selectFrom('notification_rules')
      .select(['id', 'deleted_at'])
      .where('template_key', '=', r.templateKey)
      .where('target_key', '=', r.targetKey)
      .where('kind', '=', r.kind);
    if (r.kind === 'custom') existing = existing.where('config', '=', config);
    const found = await existing.orderBy('id').executeTakeFirst();
    const deletedAt = r.deleted ? (found?.deleted_at ?? now) : null;
    if (found)
      await trx
        .updateTable('notification_rules')
        .set({ ...values, deleted_at: deletedAt, updated_at: now })
        .where('id', '=', found.id)
        .execute();
    else
      await trx
        .insertInto('notification_rules')
        .values({ template_key: r.templateKey, target_key: r.targetKey, kind: r.kind, ...values, deleted_at: deletedAt })
        .execute();
  }
  return rules.length;
}

async function upsertNotes(trx: Trx, notes: Item<'clusterNotes'>[], created: Array<Date | undefined>, now: Date): Promise<number> {
  for (const [i, n] of notes.entries()) {
    const found = await trx.selectFrom('cluster_notes').select('id').where('title', '=', n.title).orderBy('id').executeTakeFirst();
    if (found) await trx.updateTable('cluster_notes').set({ content: n.content, updated_at: now }).where('id', '=', found.id).execute();
    else
      await trx
        .insertInto('cluster_notes')
        .values({ title: n.title, content: n.content, created_at: created[i] ?? now, updated_at: created[i] ?? now })
        .execute();
  }
  return notes.length;
}

async function upsertNotifications(
  trx: Trx,
  list: Item<'notifications'>[],
  times: Array<readonly [Date | undefined, Date | undefined]>,
  now: Date,
): Promise<number> {
  for (const [i, n] of list.entries()) {
    const [createdAt, dismissedAt] = times[i];
    const values = { body: n.body, severity: n.severity, scope: n.scope, dismissed_at: dismissedAt ?? null };
    const found = await trx
      .selectFrom('notifications')
      .select('id')
      .where('kind', '=', n.kind)
      .where('title', '=', n.title)
      .where((eb) => (n.nodeId ? eb('node_id', '=', n.nodeId) : eb('node_id', 'is', null)))
      .orderBy('id')
      .executeTakeFirst();
    if (found) await trx.updateTable('notifications').set(values).where('id', '=', found.id).execute();
    else
      await trx
        .insertInto('notifications')
        .values({ kind: n.kind, title: n.title, node_id: n.nodeId ?? null, ...values, created_at: createdAt ?? now })
        .execute();
  }
  return list.length;
}

/** Upserts jobs by name; returns name → id. */
async function upsertJobs(trx: Trx, jobs: Item<'backupJobs'>[], now: Date): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const j of jobs) {
    const values = {
      node_id: j.nodeId,
      mode: j.mode,
      source_dataset: j.sourceDataset,
      target_endpoint: j.targetEndpoint,
      schedule: j.schedule,
      enabled: j.enabled,
      ...runnableJobColumns(j, now),
    };
    const found = await trx.selectFrom('backup_jobs').select('id').where('name', '=', j.name).executeTakeFirst();
    if (found)
      await trx
        .updateTable('backup_jobs')
        .set({ ...values, updated_at: now })
        .where('id', '=', found.id)
        .execute();
    const id =
      found?.id ??
      (
        await trx
          .insertInto('backup_jobs')
          .values({ name: j.name, ...values })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    ids.set(j.name, id);
  }
  return ids;
}

/** A job with a target runs: its target, retention and first slot (none without a schedule or when disabled). */
function runnableJobColumns(j: Item<'backupJobs'>, now: Date) {
  if (!j.target) return {};
  // checked before anything is written (checkTargetInput above): a target here has no problems
  const t = checkTargetInput(j.target, j.nodeId).target!;
  return { ...targetColumns(t), retention: j.retention ?? 7, next_run_at: j.enabled !== false && j.schedule ? nextRunAfter(j.schedule, now) : null };
}

type EventTimes = readonly [Date | undefined, Date | undefined, Date | undefined];

/** Adds the events of jobs that have none yet; returns [added, skipped]. */
async function addEvents(trx: Trx, events: Item<'backupEvents'>[], times: EventTimes[], jobIds: Map<string, number>, now: Date): Promise<[number, number]> {
  if (!events.length) return [0, 0];
  const ids = [...new Set(events.map((e) => jobIds.get(e.job)!))];
  const jobs = await trx.selectFrom('backup_jobs').selectAll().where('id', 'in', ids).execute();
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const withHistory = new Set((await trx.selectFrom('backup_events').select('job_id').distinct().where('job_id', 'in', ids).execute()).map((r) => r.job_id));
  const rows = [];
  let skipped = 0;
  for (const [i, e] of events.entries()) {
    const job = byId.get(jobIds.get(e.job)!)!;
    if (withHistory.has(job.id)) {
      skipped++;
      continue;
    }
    const [created = now, startedGiven, completedGiven] = times[i];
    const started = startedGiven ?? (e.status === 'queued' ? null : created);
    const completed =
      completedGiven ?? (e.status === 'success' || e.status === 'failed' || e.status === 'interrupted' || e.status === 'cancelled' ? started : null);
    rows.push({
      job_id: job.id,
      node_id: job.node_id,
      mode: e.mode ?? job.mode,
      source_dataset: e.sourceDataset ?? job.source_dataset,
      target_endpoint: e.targetEndpoint ?? job.target_endpoint,
      status: e.status,
      output: e.output,
      error: e.error,
      created_at: created,
      started_at: started,
      completed_at: completed,
      updated_at: completed ?? started ?? created,
    });
  }
  for (let i = 0; i < rows.length; i += 500)
    await trx
      .insertInto('backup_events')
      .values(rows.slice(i, i + 500))
      .execute();
  return [rows.length, skipped];
}

/** `npm run seed -- FILE` and `HM_SEED=FILE npm start`. */
export async function seedFromFile(db: Kysely<Database>, file: string): Promise<SeedSummary> {
  return loadSeed(db, readSeedFile(file), file);
}

/** Loads the demo seed when the store holds none of the seed's kinds of data (a fresh `npm start`). */
export async function seedDemoIfEmpty(db: Kysely<Database>, file = resolve(DEMO_SEED)): Promise<boolean> {
  const tables = ['nodes', 'cluster_notes', 'notifications', 'notification_templates', 'backup_jobs'] as const;
  for (const t of tables) {
    if (
      await db
        .selectFrom(t)
        .select(db.fn.countAll<number>().as('n'))
        .limit(1)
        .executeTakeFirst()
        .then((r) => Number(r?.n) > 0)
    )
      return false;
  }
  await seedFromFile(db, file);
  return true;
}
