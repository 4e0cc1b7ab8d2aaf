import type { SimHost } from '#shared/seed/host/schema';
import type { SimJail } from '#shared/seed/host/jail';
import { readFile, writeFile } from '../file-tree.ts';
import { mountPath } from '../dataset-model.ts';
import { racctEnabled } from './host-release.ts';
import { memoryRuleOf, seedConfPath, seedJailFiles } from './jail-seed-layout.ts';

/**
 * Jails of a simulated host. The seed lists them (`hosts[nodeId].jails`); the first command run on the host
 * writes each one's conf, hook scripts and post-start limits where an earlier agent run would have left them
 * (./jail-seed-layout.ts; materialises it),
 * so from then on the files are the configuration, as on a real host, and this list is the kernel's view:
 * whether the jail runs, its jid, CPU affinity, and a log of the commands jail(8) ran for it. rctl rules are
 * the host's (`rctlRules`, commands/rctl.ts): they belong to a jail name, not to a running jail.
 */

export type { SimJail };
type WithJails = SimHost & { jails?: SimJail[] };

export const jailsOf = (state: SimHost): SimJail[] => ((state as WithJails).jails ??= []);
export const findSimJail = (state: SimHost, name: string) => jailsOf(state).find((j) => j.name === name);
export const runningJails = (state: SimHost) =>
  jailsOf(state)
    .filter((j) => j.state === 'running' && j.jid !== undefined)
    .sort((a, b) => a.jid! - b.jid!);

/**
 * The jid a new jail gets: the first free one after the last one handed out (sys/kern/kern_jail.c
 * kern_jail_set: `jid = lastprid + 1`, skipping jids in use, wrapping at JAIL_MAX), so a jail removed and
 * created again gets a new jid, as on a real host. The last one handed out is kernel state (`lastJid`).
 */
export function nextJid(state: SimHost): number {
  const kernel = state as SimHost & { lastJid?: number };
  const used = new Set(jailsOf(state).map((j) => j.jid ?? 0));
  let jid = Math.max(kernel.lastJid ?? 0, ...used) + 1;
  while (used.has(jid)) jid++;
  kernel.lastJid = jid;
  return jid;
}

const allCpus = (state: SimHost) => Array.from({ length: state.cpus }, (_, i) => i);

/** jail(8) creating the jail in the kernel: a fresh jid, all CPUs (post-start hooks change that). */
export function markRunning(state: SimHost, j: SimJail): void {
  j.state = 'running';
  j.jid = nextJid(state);
  j.cpusetId = j.jid + 2;
  j.affinity = allCpus(state);
}

/** The jail removed from the kernel; rctl rules naming it stay (kern_rctl.c keeps them per jail name). */
export function markStopped(j: SimJail): void {
  j.state = 'stopped';
  delete j.jid;
  delete j.cpusetId;
  delete j.affinity;
}

const HOOK_LOG_LIMIT = 200;
export function logHook(j: SimJail, phase: string, command: string, now: number): void {
  const runs = (j.hookRuns ??= []);
  runs.push({ phase, command, atMs: now });
  if (runs.length > HOOK_LOG_LIMIT) runs.splice(0, runs.length - HOOK_LOG_LIMIT);
}

/** Lays out a seeded jail on the simulated host as an earlier agent run left it (conf, hooks, limits, dataset). */
export function materialize(state: SimHost, j: SimJail): void {
  const ds = j.dataset ? state.datasets.find((d) => d.name === j.dataset) : undefined;
  const path = j.path ?? (ds ? mountPath(state, ds) : null) ?? (j.dataset ? `/${j.dataset}` : `/usr/local/jails/${j.name}`);
  j.path = path;
  if (j.dataset && !ds) state.datasets.push({ name: j.dataset, type: 'filesystem', usedBytes: 1024 ** 3, mountpoint: path });
  // a conf already on the host (written by the agent, or by a test) is the configuration: nothing is laid over it
  if (readFile(state, seedConfPath(j.name)) === null) for (const f of seedJailFiles(j, path)) writeFile(state, f.path, f.content, f.mode, true);
  if (j.state === 'running' && j.jid === undefined) {
    markRunning(state, j);
    if (j.cpuSet?.length) j.affinity = [...j.cpuSet];
    // what its limits script did at its start: the memory rule only where RACCT is on
    if (j.memoryBytes && racctEnabled(state)) state.rctlRules = [...(state.rctlRules ?? []), memoryRuleOf(j.name, j.memoryBytes)];
  }
  j.state ??= 'stopped';
  j.materialized = true;
}
