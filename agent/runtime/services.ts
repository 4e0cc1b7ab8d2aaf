import type { AgentService } from './service.ts';
import { RECOVERY_EVERY_MS, recoverCutOffMigrations } from '../jobs/jail-migration-recovery.ts';
import { peerExecutor } from './peers.ts';
import { telemetryService } from './telemetry-loop.ts';

/** The agent's periodic services (./service.ts says what one is). */
export const agentServices: AgentService[] = [
  // E20: migrations cut off by a crash are undone or finished
  {
    name: 'jail-migration-recovery',
    everyMs: () => RECOVERY_EVERY_MS,
    run: (ctx) => recoverCutOffMigrations({ ...ctx, peer: (host) => peerExecutor(ctx.config, host) }),
  },
  telemetryService(), // E14: pool and ARC samples every 10 s
];
