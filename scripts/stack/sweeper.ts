import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { sweepTasks } from '#shared/jobs/sweeper';
import { applyTaskOutcome } from '#domain/task-outcomes';
import { notifyOfflineNodes } from '#shared/jobs/node-offline';
import { startPeriodic } from './periodic.ts';

/**
 * The scheduled `tasks-sweep` function's stand-in: sweep every `everyMs`, and raise `node_offline` for member
 * nodes that went silent (unless `notifyOffline: false`).
 */
export const startSweeper = (db: Kysely<Database>, everyMs: number, log: (line: string) => void, o: { notifyOffline?: boolean } = {}) =>
  startPeriodic('sweeper', everyMs, async () => {
    const r = await sweepTasks(db, { applyOutcome: applyTaskOutcome });
    const lines: string[] = [];
    if (r.sent.length || r.failed.length || r.interrupted.length) lines.push(`sent ${r.sent.join(',') || '-'}; failed ${r.failed.join(',') || '-'}; interrupted ${r.interrupted.join(',') || '-'}`);
    const offline = o.notifyOffline === false ? [] : await notifyOfflineNodes(db);
    if (offline.length) lines.push(`node_offline raised for ${offline.join(',')}`);
    return lines.length ? lines.join('; ') : null;
  }, log);
