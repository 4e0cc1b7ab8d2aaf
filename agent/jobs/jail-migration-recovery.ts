import type { AgentService } from '../runtime/service.ts';
import { peerExecutor } from '../runtime/peers.ts';
import { listJournals } from './jail-migration-journal.ts';
import { activeMigrations, finishCommitted, migrationResult, rollBack } from './jail-migrate.ts';

/**
 * Migrations cut off by an agent crash (their journal outlived the process): at start and then every
 * minute, a journal that no running migration owns is resolved. Not committed → undone: the target keeps
 * nothing and the jail runs here again (its task was marked `interrupted` at registration). Committed (the
 * jail already runs on the target) → finished: removed here, and the task's success is reported for the
 * attempt that did the work, which moves the guest to the target node in the store. The report takes the
 * task runner's finish path: the journal is gone by then, so an undelivered report must stay in the spool.
 */
export const jailMigrationRecovery: AgentService = {
  name: 'jail-migration-recovery',
  everyMs: () => 60_000,
  async run(ctx) {
    for (const j of await listJournals(ctx.exec)) {
      if (activeMigrations.has(j.ctid)) continue;
      let target: ReturnType<typeof peerExecutor> | null = null;
      try {
        // only the host whose key was pinned when the migration started (none: the target is not touched)
        target = peerExecutor(ctx.config, { nodeId: j.target.nodeId, address: j.target.address, hostKeys: j.target.hostKeys ?? [] });
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
  },
};
