import type { Executor } from '../executors/executor.ts';
import { runChecked } from '../executors/executor.ts';
import { parseQueueMessage } from '#shared/agent-api/queue-message';
import type { PendingCancel, Registered } from '#shared/agent-api/contract';
import { isTaskKind, type TaskKind } from '#shared/agent-api/task-kinds';
import { undoAfterRestart, type UndoAfterRestart } from '../jobs/undo-after-restart.ts';
import { AgentApi, ApiError } from './api.ts';
import { backoffMs, sleep } from './backoff.ts';
import { AgentClient } from './client.ts';
import type { AgentConfig } from './config.ts';
import type { HostInventory } from '#shared/agent-api/inventory';
import { InventoryWatch, type InventorySource } from './inventory-watch.ts';
import { Lanes, Slots } from './lanes.ts';
import type { Logger } from './log.ts';
import { NodeQueue, type ReceivedMessage } from '../sqs/queue.ts';
import { TaskRunner, type WorkItem } from './runner.ts';
import { agentServices } from './services.ts';
import { peerExecutor } from './peers.ts';
import { sshHostKeyFingerprints } from '../drivers/ssh-host-keys.ts';
import { Spool } from './spool.ts';
import { nodeAddress } from './node-address.ts';

const AGENT_VERSION = '0.1.0';
/** how long a task told to wait for a running task of its resource pauses before asking again */
const WAIT_AGAIN_MS = 2000;

/** A received task message while the agent holds it (waiting for its lane, or running). */
interface Held {
  item: WorkItem;
  resource: string;
  /** every delivery of this task the agent holds (a duplicate arriving meanwhile joins here) */
  receipts: string[];
  keeper: NodeJS.Timeout;
}

export class FatalAgentError extends Error {}

/**
 * The agent's life: replay undelivered outcomes → register (+ inventory) → mark its stale running
 * tasks interrupted → heartbeat, inventory watch, services → re-apply persisted configuration → consume the
 * node's queue (bounded concurrency, serial per resource, visibility kept alive) → on stop: take no more work,
 * hand back unstarted messages, drain, exit.
 */
export class Agent {
  private readonly graceful = new AbortController();
  private readonly hard = new AbortController();
  private readonly api: AgentClient;
  private readonly spool: Spool;
  private readonly runner: TaskRunner;
  private readonly lanes = new Lanes();
  private readonly slots: Slots;
  private readonly held = new Map<number, Held>();
  private readonly timers: NodeJS.Timeout[] = [];
  private inventory!: InventoryWatch;
  private collectFull!: () => Promise<HostInventory>;
  private queue: NodeQueue | null = null;
  private consuming = false;
  /** when the control plane last answered a heartbeat or a telemetry post (this process's clock) */
  private lastHeardAt = Number.NEGATIVE_INFINITY;
  nodeId = '';

  constructor(
    private readonly cfg: AgentConfig,
    private readonly exec: Executor,
    /** what collects the inventory on this executor; `collect(true)` looks at every section */
    private readonly inventorySource: (exec: Executor, cfg: AgentConfig) => InventorySource,
    private readonly log: Logger,
  ) {
    this.api = new AgentClient(new AgentApi(cfg.apiUrl, cfg.token, log));
    this.spool = new Spool(cfg.stateDir);
    this.slots = new Slots(cfg.concurrency);
    this.runner = new TaskRunner(this.api, exec, this.spool, log, this.graceful.signal, this.hard.signal, (peer) => peerExecutor(cfg, peer));
  }

  /** First call: graceful stop (drain). Second call, or a stop before consuming began: stop now. */
  stop(): void {
    if (this.graceful.signal.aborted || !this.consuming) {
      if (!this.hard.signal.aborted) this.log('warn', 'stopping now');
      this.graceful.abort();
      this.hard.abort();
      return;
    }
    this.log('info', 'stopping: no new work; draining running tasks', { running: this.held.size });
    this.graceful.abort();
  }

  async run(): Promise<void> {
    const stop = this.graceful.signal;
    await this.runner.replaySpool();
    if (stop.aborted) return this.shutdown();
    this.nodeId = this.cfg.nodeId ?? (await runChecked(this.exec, ['sysctl', '-n', 'kern.hostuuid'])).trim().toLowerCase();
    const source = this.inventorySource(this.exec, this.cfg);
    this.collectFull = () => source.collect(true);
    this.inventory = new InventoryWatch((full) => source.collect(full), this.api, this.log);
    const reg = await this.register();
    if (!reg) return this.shutdown();
    try {
      const stale = await this.api.interruptStale({ attempts: Infinity, signal: stop });
      if (stale.interrupted.length) this.log('warn', 'tasks cut off by the previous run marked interrupted', { tasks: stale.interrupted });
      // before any queued work: a cancel the previous run was asked for is carried out, not lost with it
      for (const c of stale.cancelling) await this.carryOutCancel(c);
    } catch (err) {
      if (stop.aborted) return this.shutdown();
      throw err;
    }

    // a tick every sampling interval (or heartbeat interval, if shorter); most ticks send nothing (heartbeatDue)
    const beatTickMs = Math.min(this.cfg.heartbeatIntervalS, this.cfg.telemetryIntervalS) * 1000;
    this.every(beatTickMs, () => (this.heartbeatDue(beatTickMs) ? this.heartbeat() : Promise.resolve()));
    this.every(this.cfg.inventoryIntervalS * 1000, () => this.inventory.check());
    const ctx = {
      exec: this.exec,
      api: this.api,
      finish: this.runner.finish.bind(this.runner),
      nodeId: this.nodeId,
      config: this.cfg,
      log: this.log,
      heard: () => {
        this.lastHeardAt = Date.now();
      },
      signal: this.hard.signal,
    };
    for (const s of agentServices) {
      this.every(s.everyMs(this.cfg), () => s.run(ctx).catch((err: Error) => this.log('warn', `${s.name} failed`, { cause: err.message })), true);
    }

    this.queue = new NodeQueue({
      url: this.cfg.queueUrl ?? reg.queueUrl,
      endpoint: this.cfg.queueEndpoint,
      region: this.cfg.region,
      visibilityS: this.cfg.visibilityTimeoutS,
      waitS: this.cfg.pollWaitS,
    });
    this.consuming = true;
    // persisted configuration first, before any queued work can depend on it
    for (const item of reg.reapply) {
      if (stop.aborted) break;
      await this.runner.run({ taskId: item.taskId });
    }
    if (reg.reapply.length) this.inventory.checkSoon();
    this.log('info', 'consuming', { queueUrl: this.queue.o.url, concurrency: this.cfg.concurrency });
    await this.consume();
    await this.drain();
    return this.shutdown();
  }

  /** Undoes a task the previous run was asked to cancel (its kind's undo step) and reports it `cancelled`. */
  private async carryOutCancel(c: PendingCancel): Promise<void> {
    const load = isTaskKind(c.kind) ? (undoAfterRestart[c.kind] as (() => Promise<UndoAfterRestart<TaskKind>>) | undefined) : undefined;
    let detail: string;
    try {
      detail = load ? await (await load())(this.exec, c.payload as never) : `not undone: this agent has no undo step for ${c.kind}`;
    } catch (err) {
      detail = `not undone: ${(err as Error).message}`;
    }
    this.log('warn', 'cancel requested before the restart carried out', { taskId: c.id, detail });
    await this.runner.finish(c.id, {
      attempt: c.attempt,
      status: 'cancelled',
      error: `cancelled by ${c.requestedBy} (the agent restarted meanwhile); ${detail}`,
    });
  }

  private async register(): Promise<Registered | null> {
    const inventory = await this.collectFull();
    // what peers pin when they connect to this host (E20 migrations to it)
    const sshHostKeys = await sshHostKeyFingerprints(this.exec).catch((err: Error) => {
      this.log('warn', 'could not read the SSH host keys; peers will not connect to this host', { cause: err.message });
      return [] as string[];
    });
    const body = {
      id: this.nodeId,
      name: this.cfg.nodeName ?? inventory.hostname,
      ip: await nodeAddress(this.cfg),
      inventory,
      agentVersion: AGENT_VERSION,
      heartbeatIntervalS: this.cfg.heartbeatIntervalS,
      sshHostKeys,
    };
    try {
      const data = await this.api.register(body, { attempts: Infinity, signal: this.graceful.signal });
      this.inventory.sent(inventory);
      this.log('info', 'registered', { nodeId: this.nodeId, status: data.node.status, reapply: data.reapply.length });
      return data;
    } catch (err) {
      if (err instanceof ApiError) throw new FatalAgentError(`registration refused: ${err.message}`);
      return null; // stopped while the control plane was unreachable
    }
  }

  /**
   * Whether a bare heartbeat is due at this tick. The control plane must hear from the agent at least every
   * heartbeat interval (it registered that interval: three without a word and the node is offline). A
   * telemetry post answered counts (it touches the node), so while telemetry flows — a batch a minute, or a
   * sample every 10 s while watched — no heartbeat is sent: one is due only when nothing was answered for an
   * interval and a tick more (the batch, due at the interval, gets a tick to land; the node is offline only
   * after three intervals). While tasks are held the agent beats every tick: the heartbeat's answer names the
   * running tasks an operator cancelled. Half a tick of slack keeps a beat from landing a tick late.
   */
  private heartbeatDue(tickMs: number): boolean {
    const since = Date.now() - this.lastHeardAt;
    const intervalMs = this.cfg.heartbeatIntervalS * 1000;
    const within = this.held.size > 0 ? tickMs : intervalMs + Math.min(tickMs, intervalMs / 2);
    return since >= within - tickMs / 2;
  }

  private async heartbeat(): Promise<void> {
    try {
      const hb = await this.api.heartbeat();
      this.lastHeardAt = Date.now();
      for (const id of hb.cancel ?? []) this.runner.cancel(id);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'node_not_registered') {
        this.log('warn', 'the control plane forgot this node; registering again');
        await this.register().catch((e: Error) => this.log('error', 'registration failed', { cause: e.message }));
        return;
      }
      this.log('warn', 'heartbeat failed', { cause: (err as Error).message });
    }
  }

  /** Runs `fn` every `ms` (not overlapping itself); `now` also runs it at once. */
  private every(ms: number, fn: () => Promise<unknown>, now = false): void {
    let busy = false;
    const tick = () => {
      if (busy || this.hard.signal.aborted) return;
      busy = true;
      void fn().finally(() => (busy = false));
    };
    this.timers.push(setInterval(tick, ms));
    if (now) tick();
  }

  private async consume(): Promise<void> {
    const stop = this.graceful.signal;
    let failures = 0;
    while (!stop.aborted) {
      await this.slots.whenFree(stop);
      if (stop.aborted) break;
      let messages: ReceivedMessage[];
      try {
        messages = await this.queue!.receive(this.slots.free, stop);
        failures = 0;
      } catch (err) {
        if (stop.aborted) break;
        const wait = backoffMs(++failures, 500, 30_000);
        this.log('warn', 'queue receive failed; retrying', { cause: (err as Error).message, retryInMs: wait });
        // a queue that vanished (e.g. a restarted emulator) is created again by registering
        if (/NonExistentQueue|QueueDoesNotExist|does not exist/i.test(`${(err as Error).name} ${(err as Error).message}`))
          await this.register().catch(() => undefined);
        await sleep(wait, stop);
        continue;
      }
      for (const m of messages) this.accept(m);
    }
  }

  private accept(m: ReceivedMessage): void {
    // the body is a pointer: only the task id is read; kind and payload come from the store at start
    const msg = parseQueueMessage(m.body);
    if (!msg) {
      // nothing can be attributed to a task: drop it rather than let it cycle into the DLQ
      this.log('error', 'unreadable queue message dropped', { bytes: m.body.length });
      void this.queue!.delete(m.receipt).catch(() => undefined);
      return;
    }
    const already = this.held.get(msg.taskId);
    if (already) {
      // a second delivery of a task held here: acked together with the first when it is done
      already.receipts.push(m.receipt);
      return;
    }
    const held: Held = {
      item: { taskId: msg.taskId },
      resource: m.group ?? `task:${msg.taskId}`,
      receipts: [m.receipt],
      keeper: setInterval(() => this.keepInvisible(held), Math.max(1000, (this.cfg.visibilityTimeoutS * 1000) / 3)),
    };
    this.held.set(msg.taskId, held);
    this.slots.take();
    void this.lanes.run(held.resource, () => this.process(held));
  }

  private keepInvisible(h: Held): void {
    for (const r of h.receipts) {
      void this.queue!.extend(r).catch((err: Error) => this.log('warn', 'could not extend message visibility', { taskId: h.item.taskId, cause: err.message }));
    }
  }

  private async process(h: Held): Promise<void> {
    let waiting = false;
    try {
      // not started before shutdown: as good as abandoned
      const outcome = this.graceful.signal.aborted ? 'abandoned' : await this.runner.run(h.item);
      waiting = outcome === 'waiting';
      if (waiting) return;
      if (outcome === 'abandoned') {
        // shutdown came first: the next run gets the message again (and replays a spooled outcome before it)
        await Promise.all(h.receipts.map((r) => this.queue!.release(r).catch(() => undefined)));
      } else {
        await Promise.all(
          h.receipts.map((r) =>
            this.queue!.delete(r).catch((err: Error) => this.log('warn', 'could not delete message', { taskId: h.item.taskId, cause: err.message })),
          ),
        );
      }
      if (outcome === 'done') this.inventory.checkSoon();
    } finally {
      if (waiting) this.waitBehind(h);
      else {
        clearInterval(h.keeper);
        this.held.delete(h.item.taskId);
        this.slots.give();
      }
    }
  }

  /**
   * The store would not start the task while another of its resource runs here (its message came under
   * another group id than the resource, e.g. sent by someone else): it queues behind that one in the lane of
   * the resource the store named, its message held and kept invisible, and asks again after a pause (the
   * running task may also be one this agent does not hold, ended later by the sweeper).
   */
  private waitBehind(h: Held): void {
    h.resource = h.item.resource ?? h.resource;
    void sleep(WAIT_AGAIN_MS, this.graceful.signal).then(() => this.lanes.run(h.resource, () => this.process(h)));
  }

  private async drain(): Promise<void> {
    if (this.slots.inUse === 0) return;
    const limit = AbortSignal.any([this.hard.signal, AbortSignal.timeout(this.cfg.drainTimeoutS * 1000)]);
    await this.slots.idle(limit);
    if (this.slots.inUse > 0) {
      this.log('warn', 'drain timed out; stopping running tasks', { running: [...this.held.keys()] });
      this.hard.abort();
      // give handlers and reports a moment to notice; undelivered outcomes stay in the spool
      await this.slots.idle(AbortSignal.timeout(5000));
    }
  }

  private async shutdown(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.inventory?.stop();
    await this.exec.close?.().catch(() => undefined);
    this.log('info', 'stopped');
  }
}
