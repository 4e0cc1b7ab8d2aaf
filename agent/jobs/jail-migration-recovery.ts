import type { Executor } from '../executors/executor.ts';
import type { FinishReport } from '#shared/agent-api/contract';
import type { PeerHost } from '#shared/agent-api/tasks';
import { listJournals } from './jail-migration-journal.ts';
import { activeMigrations, finishCommitted, migrationResult, rollBack } from './jail-migrate.ts';

/** What the recovery needs of the agent; the runtime supplies it (agent/runtime/services.ts runs it as a service). */
export interface RecoveryContext {
  exec: Executor;
  /** an SSH executor on another node's host, pinned to `hostKeys`; throws when it cannot connect safely */
  peer(host: PeerHost): Executor;
  /** reports a task's outcome the way the task runner does (spooled until it lands) */
  finish(taskId: number, report: FinishReport, retry?: { attempts: number; signal?: AbortSignal }): Promise<boolean>;
  log(level: 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void;
  /** aborted when the agent stops */
  signal: AbortSignal;
}

/** How often the recovery looks for cut-off migrations. */
export const RECOVERY_EVERY_MS = 60_000;

/**
 * Migrations cut off by an agent crash (their journal outlived the process): at start and then every
 * minute, a journal that no running migration owns is resolved. Not committed → undone: the target keeps
 * nothing and the jail runs here again (its task was marked `interrupted` at registration). Committed (the
 * jail already runs on the target) → finished: removed here, and the task's success is reported for the
 * attempt that did the work, which moves the guest to the target node in the store. The report takes the
 * task runner's finish path: the journal is gone by then, so an undelivered report must stay in the spool.
 */
export async function recoverCutOffMigrations(ctx: RecoveryContext): Promise<void> {
  for (const j of await listJournals(ctx.exec)) {
    if (activeMigrations.has(j.ctid)) continue;
    let target: Executor | null = null;
    try {
      // only the host whose key was pinned when the migration started (none: the target is not touched)
      target = ctx.peer({ nodeId: j.target.nodeId, address: j.target.address, hostKeys: j.target.hostKeys ?? [] });
    } catch (err) {
      ctx.log('warn', 'cut-off jail migration: target not reachable', { taskId: j.taskId, cause: (err as Error).message });
    }
    try {
      if (j.phase === 'committed') {
        const warnings = await finishCommitted(ctx.exec, target, j);
        if (j.attempt !== null) {
          const result = { ...migrationResult(j, warnings), recovered: true };
          await ctx.finish(j.taskId, { attempt: j.attempt, status: 'success', result }, { attempts: 5, signal: ctx.signal });
        }
        ctx.log('warn', 'cut-off jail migration finished', { taskId: j.taskId, ctid: j.ctid, warnings });
      } else {
        const problems = await rollBack(ctx.exec, target, j);
        ctx.log(problems.length ? 'error' : 'warn', 'cut-off jail migration undone', { taskId: j.taskId, ctid: j.ctid, phase: j.phase, problems });
      }
    } finally {
      await target?.close?.().catch(() => undefined);
    }
  }
}
