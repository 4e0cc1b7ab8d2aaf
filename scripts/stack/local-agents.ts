import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { createToken } from '#shared/auth/tokens';
import { startAgentProcess } from './agent.ts';
import { ensureSimulatorState, seedHost, type LocalAgent } from './local-agent.ts';
import { isLoopback, startPeerSsh, type PeerSsh } from './peer-ssh.ts';
import { freePort } from './ports.ts';

/** A seeded node that has a simulated host, and how its agent will present it. */
export interface PlannedAgent {
  nodeId: string;
  name: string;
  /** the node's address: seeded, else a loopback address given here */
  address: string;
  statePath: string;
  /** a pending node: its agent starts once the members' agents have registered */
  pending?: boolean;
}

/** Which nodes get an agent: every one with a simulated host, or only these ids (HM_AGENT_NODE). */
export type AgentSelection = 'all' | 'none' | string[];

/**
 * The nodes of the store that have a simulated host — its state file from an earlier start, else
 * `hosts[<id>]` of the seed file — members first (they are the cluster; pending nodes wait for E16), then by
 * name. A node without an address gets a free loopback address (127.0.0.10 and up), so peers can reach it.
 */
export async function planAgents(db: Kysely<Database>, o: { seedFile: string; localDir: string; select: AgentSelection }): Promise<PlannedAgent[]> {
  if (o.select === 'none') return [];
  const nodes = await db.selectFrom('nodes').select(['id', 'name', 'ip', 'status']).execute();
  nodes.sort((a, b) => Number(b.status === 'member') - Number(a.status === 'member') || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const taken = new Set(nodes.map((n) => n.ip).filter(Boolean));
  let next = 10;
  const freeLoopback = () => {
    while (taken.has(`127.0.0.${next}`)) next++;
    taken.add(`127.0.0.${next}`);
    return `127.0.0.${next}`;
  };
  const out: PlannedAgent[] = [];
  for (const n of nodes) {
    if (Array.isArray(o.select) && !o.select.includes(n.id)) continue;
    const statePath = resolve(o.localDir, 'simulator', `${n.id}.json`);
    if (!existsSync(statePath)) {
      const host = seedHost(o.seedFile, n.id);
      if (!host) continue;
      ensureSimulatorState(statePath, host);
    }
    out.push({ nodeId: n.id, name: n.name, address: n.ip || freeLoopback(), statePath, ...(n.status === 'pending' ? { pending: true } : {}) });
  }
  return out;
}

/** What `npm start` says about the peer connections of a plan that cannot work (an address off this machine, a shared one). */
export function peerWarnings(plan: PlannedAgent[]): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const a of plan) {
    if (!isLoopback(a.address)) {
      out.push(
        `node ${a.name} (${a.nodeId}): its address ${a.address} is not on this machine, so other simulated nodes cannot reach it (E20 migrations to it fail to connect); give simulated nodes distinct loopback addresses in the seed, e.g. "ip": "127.0.0.12"`,
      );
    } else if (seen.has(a.address)) {
      out.push(
        `node ${a.name} (${a.nodeId}): its address ${a.address} is also node ${seen.get(a.address)}'s; E20 migrations to it reach that node's host instead — give each simulated node its own 127.0.0.x address in the seed`,
      );
    } else seen.set(a.address, a.name);
  }
  return out;
}

const startedAt = async (db: Kysely<Database>, ids: string[]) =>
  new Map(
    (ids.length ? await db.selectFrom('nodes').select(['id', 'agent_started_at']).where('id', 'in', ids).execute() : []).map((r) => [
      r.id,
      r.agent_started_at?.getTime() ?? null,
    ]),
  );

/**
 * Waits (at most `timeoutMs`) until every member agent launched here has registered, so a pending node's agent
 * reports its guests after the members' do: a member's guests are the cluster's, a pending node's provisional
 * (E16 reports the ids they share). Without the wait, the registration re-applying a pending node's jail could
 * hold an id a member reports a moment later.
 */
async function membersRegistered(db: Kysely<Database>, before: Map<string, number | null>, timeoutMs: number, warn: (line: string) => void): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const now = await startedAt(db, [...before.keys()]);
    if ([...before].every(([id, t]) => now.get(id) !== null && now.get(id) !== t)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  warn(`member agents did not register within ${timeoutMs / 1000} s; starting the pending nodes' agents anyway`);
}

export interface LocalAgents {
  agents: LocalAgent[];
  peer: PeerSsh | null;
  warnings: string[];
  stop(): Promise<void>;
}

/**
 * npm start's agents, one per planned simulated host: the peer SSH servers first (so a migration can reach
 * any host as soon as agents run), then per node a fresh agent token (earlier ones of npm start revoked) and
 * the agent process. The agent presents the node with its seeded name and address — a simulated host has no
 * real ones, and the machine's hostname and IP would be wrong for every node.
 */
export async function startLocalAgents(o: {
  db: Kysely<Database>;
  plan: PlannedAgent[];
  apiUrl: string;
  queueEndpoint: string;
  queuePrefix: string;
  localDir: string;
  logDir: string;
  peerPort?: number;
  warn: (line: string) => void;
}): Promise<LocalAgents> {
  const warnings = peerWarnings(o.plan);
  for (const w of warnings) o.warn(w);
  const first = new Set<string>();
  const peerHosts = o.plan.filter((a) => isLoopback(a.address) && !first.has(a.address) && first.add(a.address));
  const peer = peerHosts.length
    ? await startPeerSsh({
        hosts: peerHosts,
        port: o.peerPort || (await freePort()),
        dir: join(o.localDir, 'peer-ssh'),
        warn: (l) => (warnings.push(l), o.warn(l)),
      })
    : null;
  const agents: LocalAgent[] = [];
  const stop = async () => {
    await Promise.all(agents.map((a) => a.process.stop(15_000)));
    await peer?.stop();
  };
  try {
    const members = await startedAt(
      o.db,
      o.plan.filter((a) => !a.pending).map((a) => a.nodeId),
    );
    let waited = false;
    for (const a of o.plan) {
      if (a.pending && !waited && members.size) await membersRegistered(o.db, members, 30_000, o.warn);
      waited ||= Boolean(a.pending);
      const name = `agent ${a.nodeId} (npm start)`;
      await o.db.updateTable('api_tokens').set({ revoked_at: new Date() }).where('name', '=', name).where('revoked_at', 'is', null).execute();
      const { token } = await createToken(o.db, { name, role: 'agent', nodeId: a.nodeId });
      const logFile = join(o.logDir, `agent-${a.nodeId}.log`);
      const peerArgs = peer ? ['--peer-ssh-port', String(peer.port), '--peer-ssh-user', peer.user, '--peer-ssh-key', peer.keyFile] : [];
      const proc = startAgentProcess({
        apiUrl: o.apiUrl,
        token,
        nodeId: a.nodeId,
        simulatorState: a.statePath,
        stateDir: resolve(o.localDir, 'agent', a.nodeId),
        queueEndpoint: o.queueEndpoint,
        queuePrefix: o.queuePrefix,
        args: ['--node-name', a.name, '--node-ip', a.address, ...peerArgs],
        logFile,
      });
      agents.push({ nodeId: a.nodeId, name: a.name, address: a.address, process: proc, logFile, statePath: a.statePath });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { agents, peer, warnings, stop };
}
