import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import { activePhases, HOOK_PHASES, isBlank, noHooks, type HookPhase, type JailHooks } from '#domain/jails/hooks';
import type { JailInventory } from '#domain/jails/types';
import { parseHeader, parseJailConf, paramValue, paramValues, withManagedSection, type ParsedConf } from './jail-conf.ts';
import { hookFileContent, jailFiles, JAIL_CONF_DIR, limitsFileContent, managedLines, parseLimitsFile, scriptOfHookFile, type JailFiles, type Limits } from './jail-layout.ts';
import { listDir, readOrNull, removeFiles, writeText } from './host-files.ts';
import { listRunningJails } from './jls.ts';
import { jailUsage, addRule, removeJailRules, memoryRule } from './rctl.ts';
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
      files: jailFiles(ctid, block.name, path),
    });
  }
  return out;
}

export async function findJail(exec: Executor, ctid: number): Promise<ConfiguredJail> {
  const j = (await configuredJails(exec)).find((c) => c.ctid === ctid);
  if (!j) throw new Error(`jail ${ctid} is not configured on this host (no ${JAIL_CONF_DIR}/*.conf with ctid=${ctid})`);
  return j;
}

/** The phases the conf's exec lines wire to the agent's hook scripts. */
function wiredPhases(j: ConfiguredJail): HookPhase[] {
  return HOOK_PHASES.filter((p) => paramValues(j.conf, j.name, `exec.${p}`).includes(j.files.hookCommand(p)));
}

const limitsWired = (j: ConfiguredJail) => paramValues(j.conf, j.name, 'exec.poststart').includes(j.files.limits);

/** Hooks as the host has them: wired phases are enabled; a script file that is not wired is a disabled phase. */
async function readHooks(exec: Executor, j: ConfiguredJail): Promise<JailHooks> {
  const wired = wiredPhases(j);
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

async function rewriteManaged(exec: Executor, j: ConfiguredJail, wired: HookPhase[], hasLimits: boolean): Promise<void> {
  const text = withManagedSection(j.confText, j.name, managedLines(j.files, wired, hasLimits));
  if (text !== j.confText) await writeText(exec, j.files.conf, text);
}

/**
 * E3 on the host: every phase with a script gets its file; enabled ones are wired into the conf with
 * `exec.<phase> +=`; cleared phases lose their file. jail(8) reads the conf when the jail is next started or
 * stopped, so a running jail is left alone.
 */
export async function applyHooks(exec: Executor, ctid: number, hooks: JailHooks): Promise<HookPhase[]> {
  const j = await findJail(exec, ctid);
  const gone: string[] = [];
  for (const p of HOOK_PHASES) {
    const h = hooks[p];
    if (isBlank(h.script) && !h.enabled) gone.push(j.files.hookFile(p));
    else await writeText(exec, j.files.hookFile(p), hookFileContent(h.script), '755');
  }
  await removeFiles(exec, gone);
  const wired = activePhases(hooks);
  await rewriteManaged(exec, j, wired, limitsWired(j));
  return wired;
}

/**
 * E4 on the host: the post-start limits script (so every later start pins the jail), and, when the jail runs
 * and `applyNow`, the same limits at once: `cpuset -l … -j <name>` and the rctl memoryuse rule.
 */
export async function applyLimits(exec: Executor, ctid: number, limits: Limits, applyNow: boolean): Promise<{ appliedNow: boolean }> {
  const j = await findJail(exec, ctid);
  const content = limitsFileContent(j.name, ctid, limits);
  if (content) await writeText(exec, j.files.limits, content, '755');
  else await removeFiles(exec, [j.files.limits]);
  await rewriteManaged(exec, j, wiredPhases(j), content !== '');
  if (!applyNow) return { appliedNow: false };
  if (!(await isRunning(exec, j.name))) return { appliedNow: false };
  if (limits.cpuSet.length) await pinJail(exec, j.name, limits.cpuSet);
  await removeJailRules(exec, j.name);
  if (limits.memoryBytes > 0) await addRule(exec, memoryRule(j.name, limits.memoryBytes));
  return { appliedNow: true };
}

/** `jail -f <conf> -c <name>`: jail(8) runs exec.prestart, start, poststart (the hooks and limits). */
export async function startJail(exec: Executor, name: string, conf: string): Promise<void> {
  await runChecked(exec, ['jail', '-f', conf, '-c', name]);
}

/** `jail -f <conf> -r <name>`: exec.prestop, stop, poststop. */
export async function stopJail(exec: Executor, name: string, conf: string): Promise<void> {
  await runChecked(exec, ['jail', '-f', conf, '-r', name]);
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
