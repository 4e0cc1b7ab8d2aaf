import type { HostInventory } from '#shared/agent-api/inventory';
import type { TelemetrySample } from '#shared/agent-api/telemetry';
import {
  agentContract,
  type AgentBody,
  type AgentCallName,
  type AgentData,
  type AgentPath,
  type FinishReport,
  type ProgressReport,
  type RegisterBody,
} from '#shared/agent-api/contract';
import type { AgentApi, RetryPolicy } from './api.ts';

/** What the client sends through: AgentApi, or a stand-in in tests. */
type AgentTransport = Pick<AgentApi, 'call'>;

/** Fills a route's `{name}` segments; the base URL already ends in /api, so the route goes without it. */
function pathOf(route: string, params: Record<string, number>): string {
  return route.replace(/^\/api/, '').replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
}

/**
 * The agent's only way to the control plane: one typed method per call of the agent contract
 * (shared/agent-api/contract.ts), over AgentApi's retrying caller. Each method takes the retry policy of its
 * call site (default: one attempt) and resolves with the answer's `data`.
 */
export class AgentClient {
  /** The newest `finishedAt` among the outcomes the control plane has acknowledged (its own clock): sent with inventories as `asOf`. */
  settledAt: string | undefined;

  constructor(private readonly transport: AgentTransport) {}

  async register(body: RegisterBody, retry?: RetryPolicy) {
    const data = await this.send('register', {}, body, retry);
    // every task outcome after this registration is yet to be acknowledged to this process: a report collected
    // before its first acknowledged finish is as recent as the registration (the store's clock), not unknown
    this.settle(data.node.agentStartedAt);
    return data;
  }

  heartbeat(retry?: RetryPolicy) {
    return this.send('heartbeat', {}, undefined, retry);
  }

  interruptStale(retry?: RetryPolicy) {
    return this.send('interruptStale', {}, undefined, retry);
  }

  inventory(inventory: HostInventory, retry?: RetryPolicy, asOf?: string) {
    return this.send('inventory', {}, { inventory, ...(asOf ? { asOf } : {}) }, retry);
  }

  telemetry(samples: TelemetrySample[], retry?: RetryPolicy) {
    return this.send('telemetry', {}, { samples }, retry);
  }

  start(taskId: number, retry?: RetryPolicy) {
    return this.send('start', { id: taskId }, undefined, retry);
  }

  progress(taskId: number, report: ProgressReport, retry?: RetryPolicy) {
    return this.send('progress', { id: taskId }, report, retry);
  }

  async finish(taskId: number, report: FinishReport, retry?: RetryPolicy) {
    const task = await this.send('finish', { id: taskId }, report, retry);
    this.settle(task.finishedAt);
    return task;
  }

  private settle(at: string | null | undefined): void {
    if (at && (!this.settledAt || at > this.settledAt)) this.settledAt = at;
  }

  private async send<N extends AgentCallName>(name: N, params: NoInfer<AgentPath<N>>, body: NoInfer<AgentBody<N>>, retry?: RetryPolicy): Promise<AgentData<N>> {
    const { method, route } = agentContract[name];
    const { data } = await this.transport.call<AgentData<N>>(method, pathOf(route, params as Record<string, number>), body, retry);
    return data;
  }
}
