import type { AgentService } from './service.ts';
import { jailMigrationRecovery } from '../jobs/jail-migration-recovery.ts';
import { telemetryService } from './telemetry-loop.ts';

/** The agent's periodic services (./service.ts says what one is). */
export const agentServices: AgentService[] = [
  jailMigrationRecovery, // E20: migrations cut off by a crash are undone or finished
  telemetryService(), // E14: pool and ARC samples every 10 s
];
