import type { Executor } from '../executors/executor.ts';
import type { FinishReport } from '#shared/agent-api/contract';
import type { RetryPolicy } from './api.ts';
import type { AgentClient } from './client.ts';
import type { AgentConfig } from './config.ts';
import type { Logger } from './log.ts';

interface ServiceContext {
  exec: Executor;
  api: AgentClient;
  /** reports a task's outcome the way the task runner does (spooled until it lands); see TaskRunner.finish */
  finish(taskId: number, report: FinishReport, retry?: RetryPolicy): Promise<boolean>;
  nodeId: string;
  config: AgentConfig;
  log: Logger;
  /** the control plane answered a report of the service: the agent was heard from (the next bare heartbeat can wait) */
  heard(): void;
  /** aborted when the agent stops */
  signal: AbortSignal;
}

/**
 * Periodic work of the agent besides tasks (e.g. telemetry sampling, E14). Each runs every `everyMs` from
 * registration until shutdown; one run at a time; a failing run is logged and the next one tries again.
 * A capability adds its service to `agentServices` in ./services.ts (one import, one entry); services import
 * this file, never that list.
 */
export interface AgentService {
  name: string;
  everyMs(config: AgentConfig): number;
  run(ctx: ServiceContext): Promise<void>;
}
