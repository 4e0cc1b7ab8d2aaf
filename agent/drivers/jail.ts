import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import { activePhases, HOOK_PHASES, isBlank, noHooks, type HookPhase, type JailHooks } from '#shared/agent-api/jail-hooks';
import { fitCpuSet } from '#shared/agent-api/jail-cpu';
import type { JailInventory } from '#shared/agent-api/inventory';
import { parseHeader, parseJailConf, paramValue, paramValues, withManagedSection, type ParsedConf } from './jail-conf.ts';
import {
  hookCommand,
  hookFileContent,
  hookParam,
  isHookCommand,
  jailFiles,
  JAIL_CONF_DIR,
  limitsFileContent,
  managedLines,
  parseLimitsFile,
  scriptOfHookFile,
  type JailFiles,
  type Limits,
} from './jail-layout.ts';
import { listDir, readOrNull, removeFiles, writeText } from './host-files.ts';
import { listRunningJails } from './jls.ts';
import { jailUsage, addRule, removeMemoryRule, memoryRule, requireRacct } from './rctl.ts';
import { pinJail } from './cpuset.ts';

/** A managed jail as its conf describes it (before looking at whether it runs). */
interface ConfiguredJail {
  ctid: number;
  name: string;
  hostname: string;
  path: string;
  dataset: string | null;
  confText: string;
  conf: ParsedConf;
  files: JailFiles;
}

/** The jails the agent manages: every `/etc/jail.conf.d/*.conf` with the agent's header. */
export async function configuredJails(exec: Executor): Promise<ConfiguredJail[]> {
  const out: ConfiguredJail[] = [];
  for (const file of (await listDir(exec, JAIL_CONF_DIR)).filter((f) => f.endsWith('.conf')).sort()) {
    const confText = await readOrNull(exec, `${JAIL_CONF_DIR}/${file}`);
    if (confText === null) continue;
    const header = parseHeader(confText);
    const ctid = Number(header.ctid);
    if (!Number.isInteger(ctid) || ctid < 1) continue; // not one of ours
    const conf = parseJailConf(confText);
    const block = conf.jails[0];
    if (!block) continue;
    const path = paramValue(conf, block.name, 'path') ?? '';
    out.push({
      ctid,
      name: block.name,
      hostname: paramValue(conf, block.name, 'host.hostname') ?? block.name,
      path,
      dataset: header.dataset ?? null,
      confText,
      conf,
      files: jailFiles(ctid, block.name),
    });
  }
  return out;
}

export async function findJail(exec: Executor, ctid: number): Promise<ConfiguredJail> {
  const j = (await configuredJails(exec)).find((c) => c.ctid === ctid);
  if (!j) throw new Error(`jail ${ctid} is not configured on this host (no ${JAIL_CONF_DIR}/*.conf with ctid=${ctid})`);
  return j;
}

/** The phases the conf's exec lines wire to the agent's hook scripts, with their commands. */
function wiredHooks(j: ConfiguredJail): Partial<Record<HookPhase, string>> {
  const out: Partial<Record<HookPhase, string>> = {};
  for (const p of HOOK_PHASES) {
    const command = paramValues(j.conf, j.name, hookParam(p)).find((c) => isHookCommand(j.files, p, c));
    if (command !== undefined) out[p] = command;
  }
  return out;
}

const limitsWired = (j: ConfiguredJail) => paramValues(j.conf, j.name, 'exec.poststart').includes(j.files.limits);

/** Hooks as the host has them: wired phases are enabled; a script file that is not wired is a disabled phase. */
async function readHooks(exec: Executor, j: ConfiguredJail): Promise<JailHooks> {
  const wired = Object.keys(wiredHooks(j));
  const hooks = noHooks();
  for (const p of HOOK_PHASES) {
    const content = await readOrNull(exec, j.files.hookFile(p));
    hooks[p] = { enabled: wired.includes(p), script: content === null ? '' : scriptOfHookFile(content) };
  }
  return hooks;
}

async function readLimits(exec: Executor, j: ConfiguredJail): Promise<Limits> {
  return limitsWired(j) ? parseLimitsFile(await readOrNull(exec, j.files.limits)) : { cpuSet: [], memoryBytes: 0 };
}

async function rewriteManaged(exec: Executor, j: ConfiguredJail, wired: Partial<Record<HookPhase, string>>, hasLimits: boolean): Promise<void> {
  const text = withManagedSection(j.confText, j.name, managedLines(j.files, wired, hasLimits));
  if (text !== j.confText) await writeText(exec, j.files.conf, text);
}

/**
 * E3 on the host: every phase with a script gets its file (all on the host, see jail-layout.ts); enabled ones
 * are wired into the conf (`exec.<phase> +=`, start/stop through jexec); cleared phases lose their file.
 * jail(8) reads the conf when the jail is next started or stopped, so a running jail is left alone.
 */
export async function applyHooks(exec: Executor, ctid: number, hooks: JailHooks): Promise<HookPhase[]> {
  const j = await findJail(exec, ctid);
  const active = activePhases(hooks);
  // every command first: a start/stop script with an unusable interpreter line fails before anything changes
  const wired: Partial<Record<HookPhase, string>> = {};
  for (const p of active) wired[p] = hookCommand(j.files, p, hooks[p].script);
  const gone: string[] = [];
  for (const p of HOOK_PHASES) {
    const h = hooks[p];
    if (isBlank(h.script) && !h.enabled) gone.push(j.files.hookFile(p));
    else await writeText(exec, j.files.hookFile(p), hookFileContent(h.script), '755');
  }
  await removeFiles(exec, gone);
  await rewriteManaged(exec, j, wired, limitsWired(j));
  return active;
}

/** The host's CPU count (`hw.ncpu`). */
async function hostCpus(exec: Executor): Promise<number> {
  return Number((await runChecked(exec, ['sysctl', '-n', 'hw.ncpu'])).trim());
}

/**
 * E4 on the host: the post-start limits script (so every later start pins the jail), and, when the jail runs
 * and `applyNow`, the same limits at once: `cpuset -l … -j <name>` and the rctl memoryuse rule.
 * A memory limit needs RACCT: without it the task fails before anything changes. The CPU list is fitted to
 * the host's CPUs. rctl rules belong to the jail's *name* and outlive the jail (kern_rctl.c), so the old
 * memory rule is removed whether the jail runs or not — else a limit taken away would come back at the next
 * start. Only that rule: rules an operator loaded for the jail are not the agent's.
 */
export async function applyLimits(exec: Executor, ctid: number, wanted: Limits, applyNow: boolean): Promise<{ appliedNow: boolean; cpuSet: number[] }> {
  const j = await findJail(exec, ctid);
  const racct = await requireRacct(exec, wanted.memoryBytes > 0);
  const limits = { ...wanted, cpuSet: wanted.cpuSet.length ? fitCpuSet(wanted.cpuSet, await hostCpus(exec)) : [] };
  const content = limitsFileContent(j.name, ctid, limits);
  if (content) await writeText(exec, j.files.limits, content, '755');
  else await removeFiles(exec, [j.files.limits]);
  await rewriteManaged(exec, j, wiredHooks(j), content !== '');
  if (racct) await removeMemoryRule(exec, j.name);
  const running = applyNow && (await isRunning(exec, j.name));
  if (running) {
    if (limits.cpuSet.length) await pinJail(exec, j.name, limits.cpuSet);
    if (limits.memoryBytes > 0) await addRule(exec, memoryRule(j.name, limits.memoryBytes));
  }
  return { appliedNow: running, cpuSet: limits.cpuSet };
}

/**
 * Before a start: a limits script naming CPUs this host lacks (a jail migrated from a bigger host, a host
 * that lost CPUs) is rewritten with the list fitted to `hw.ncpu`, so cpuset does not fail the start.
 */
async function fitLimitsToHost(exec: Executor, name: string, conf: string): Promise<void> {
  const text = await readOrNull(exec, conf);
  if (text === null) return;
  let parsed: ParsedConf;
  try {
    parsed = parseJailConf(text);
  } catch {
    return; // jail(8) reports the conf's syntax itself
  }
  const path = paramValues(parsed, name, 'exec.poststart').find((c) => c.endsWith('/limits.sh'));
  const ctid = Number(parseHeader(text).ctid);
  if (!path || !Number.isInteger(ctid) || path !== jailFiles(ctid, name).limits) return;
  const limits = parseLimitsFile(await readOrNull(exec, path));
  if (!limits.cpuSet.length) return;
  const fitted = fitCpuSet(limits.cpuSet, await hostCpus(exec));
  if (fitted.join() !== limits.cpuSet.join()) await writeText(exec, path, limitsFileContent(name, ctid, { ...limits, cpuSet: fitted }), '755');
}

/**
 * `jail -f <conf> -c <name>`: jail(8) runs exec.prestart, start, poststart (the hooks and limits); any of
 * them failing makes jail(8) remove the jail again and exit 1, with `jail: <name>: <command>: failed`.
 */
export async function startJail(exec: Executor, name: string, conf: string): Promise<void> {
  await fitLimitsToHost(exec, name, conf);
  await runChecked(exec, ['jail', '-f', conf, '-c', name]);
}

/**
 * `jail -f <conf> -r <name>`: exec.prestop, stop, poststop. A failing prestop or stop command leaves the jail
 * running (jail(8) exits 1). Its memory rule is removed after it stops (it would otherwise stay in the
 * kernel under its name, e.g. after a migration); the limits script adds it again at the next start.
 */
export async function stopJail(exec: Executor, name: string, conf: string): Promise<void> {
  await runChecked(exec, ['jail', '-f', conf, '-r', name]);
  await removeMemoryRule(exec, name);
}

export async function isRunning(exec: Executor, name: string): Promise<boolean> {
  return (await listRunningJails(exec)).some((r) => r.name === name);
}

/** The jails section of the inventory (agent/collectors/jails.ts). */
export async function jailInventory(exec: Executor): Promise<JailInventory[]> {
  const running = await listRunningJails(exec);
  const out: JailInventory[] = [];
  for (const j of await configuredJails(exec)) {
    const live = running.find((r) => r.name === j.name) ?? running.find((r) => r.name === null && r.path === j.path);
    const limits = await readLimits(exec, j);
    let memoryUsedBytes: number | null = null;
    if (live) {
      try {
        memoryUsedBytes = (await jailUsage(exec, j.name)).memoryuse ?? null;
      } catch (err) {
        if (!(err instanceof CommandError)) throw err; // racct disabled (kern.racct.enable=0): no usage figures
      }
    }
    out.push({
      ctid: j.ctid,
      name: j.name,
      state: live ? 'running' : 'stopped',
      jid: live?.jid ?? null,
      hostname: j.hostname,
      path: j.path,
      dataset: j.dataset,
      hooks: await readHooks(exec, j),
      cpuSet: limits.cpuSet,
      memoryBytes: limits.memoryBytes,
      memoryUsedBytes,
    });
  }
  return out.sort((a, b) => a.ctid - b.ctid);
}
