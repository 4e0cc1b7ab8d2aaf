import type { SimHost } from '#shared/seed/host/schema';
import type { SimJail } from '#shared/seed/host/jail';
import { HOOK_PHASES } from '#domain/jails/hooks';
import { renderJailConf, withManagedSection } from '#agent/drivers/jail-conf';
import { hookCommand, hookFileContent, jailFiles, limitsFileContent, managedLines } from '#agent/drivers/jail-layout';
import { memoryRule } from '#agent/drivers/rctl';
import { readFile, writeFile } from '../file-tree.ts';
import { mountPath } from '../dataset-model.ts';
import { racctEnabled } from './host-release.ts';

/**
 * Jails of a simulated host. The seed lists them (`hosts[nodeId].jails`); the first command run on the host
 * writes each one's conf, hook scripts and post-start limits as the agent lays them out (materialises it),
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

/** Lays out a seeded jail on the simulated host the way the agent does (conf, hooks, limits, dataset). */
export function materialize(state: SimHost, j: SimJail): void {
  const ds = j.dataset ? state.datasets.find((d) => d.name === j.dataset) : undefined;
  const path = j.path ?? (ds ? mountPath(state, ds) : null) ?? (j.dataset ? `/${j.dataset}` : `/usr/local/jails/${j.name}`);
  j.path = path;
  if (j.dataset && !ds) state.datasets.push({ name: j.dataset, type: 'filesystem', usedBytes: 1024 ** 3, mountpoint: path });
  const files = jailFiles(j.ctid, j.name);
  let conf = readFile(state, files.conf);
  if (conf === null) {
    conf = renderJailConf({ ctid: j.ctid, name: j.name, hostname: j.hostname ?? j.name, path, dataset: j.dataset ?? null, ip4: j.ip4 });
    const wired: Partial<Record<(typeof HOOK_PHASES)[number], string>> = {};
    for (const p of HOOK_PHASES) {
      if (!j.hooks?.[p]?.enabled || !j.hooks[p]!.script.trim()) continue;
      try {
        wired[p] = hookCommand(files, p, j.hooks[p]!.script);
      } catch {
        // a start/stop script whose #! line the agent would refuse: laid out, not wired (as E3 would answer 400)
      }
    }
    for (const p of HOOK_PHASES) {
      const h = j.hooks?.[p];
      if (h && (h.enabled || h.script.trim())) writeFile(state, files.hookFile(p), hookFileContent(h.script), '755', true);
    }
    const limits = limitsFileContent(j.name, j.ctid, { cpuSet: j.cpuSet ?? [], memoryBytes: j.memoryBytes ?? 0 });
    if (limits) writeFile(state, files.limits, limits, '755', true);
    writeFile(state, files.conf, withManagedSection(conf, j.name, managedLines(files, wired, limits !== '')), '644', true);
  }
  if (j.state === 'running' && j.jid === undefined) {
    markRunning(state, j);
    if (j.cpuSet?.length) j.affinity = [...j.cpuSet];
    // what its limits script did at its start: the memory rule only where RACCT is on
    if (j.memoryBytes && racctEnabled(state)) state.rctlRules = [...(state.rctlRules ?? []), memoryRule(j.name, j.memoryBytes)];
  }
  j.state ??= 'stopped';
  j.materialized = true;
}
