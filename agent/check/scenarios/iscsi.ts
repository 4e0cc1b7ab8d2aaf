import type { IscsiConfig } from '#shared/agent-api/task-kinds';
import { runChecked, type Executor } from '../../executors/executor.ts';
import { CtlConfError } from '../../drivers/ctl-conf-check.ts';
import { ctlConfModel, parseCtlConf } from '../../drivers/ctl-conf-parse.ts';
import { CTL_CONF } from '../../drivers/ctl-conf.ts';
import { servedLuns } from '../../drivers/ctladm.ts';
import { readOrNull } from '../../drivers/host-files.ts';
import { runJob } from '../jobs.ts';
import { SkipScenario, type Scenario, type ScenarioContext } from '../runner.ts';
import { createFilePool, SCRATCH_DIR } from './scratch-pool.ts';

/**
 * A ctl.conf change on a scratch target (only with --iscsi): the host's /etc/ctl.conf is read into the node's
 * iSCSI configuration model (ctl-conf-parse.ts; a file the model cannot hold whole skips the scenario, naming
 * what would be lost), a target iqn.2005-10.org.freebsd.ctl:hm-check-<id> is added to it with LUN 0 on a zvol
 * of a file-backed scratch pool, and the `iscsi.apply-config` job — the agent's code for E13 — checks, installs
 * and loads it and confirms it with ctladm. The kit reads back that the scratch LUN is served and that every
 * target the host served before still is, with the same LUNs. Then it undoes the change: the original
 * /etc/ctl.conf (a byte copy taken first, `cp` then `mv`, so mode and bytes are the host's) or none, ctld
 * reloaded (stopped again when the job had to start it), `ctld_enable` set back with sysrc (`sysrc -x` when
 * no rc.conf file set it, and an /etc/rc.conf sysrc had to create is removed again when it is left empty),
 * the zvol and the pool destroyed. The scratch target joins the host's first portal group (no new listener)
 * or, on a host without one, a portal group hm-check-<id> on 127.0.0.1; its auth-group is `no-access`, so no
 * initiator can log in to it.
 */
const IQN_PREFIX = 'iqn.2005-10.org.freebsd.ctl';
const RC_CONF = '/etc/rc.conf';
const ZVOL_SIZE = '16M';
/** 200 ms apart: 10 s for the zvol's device node */
const DEV_WAIT_TRIES = 50;

/** 200 ms apart: 10 s for ctld to apply a reload */
const RELOAD_WAIT_TRIES = 50;

const ok = async (exec: Executor, argv: string[]) => (await exec.run(argv)).code === 0;

/**
 * Waits until ctld no longer serves `target` (ctladm portlist/devlist). `service ctld reload` only sends SIGHUP:
 * ctld's main loop notices the signal later and applies the new ctl.conf then (usr.sbin/ctld/ctld.c
 * main_loop → conf_apply), so right after the reload the kernel may still have the old ports and LUNs — and a
 * zvol still open as a LUN must not be destroyed. True once it is gone, false after the tries.
 */
async function untilNotServed(exec: Executor, target: string): Promise<boolean> {
  for (let n = 0; ; n++) {
    if (!(await servedLuns(exec)).has(target)) return true;
    if (n === RELOAD_WAIT_TRIES) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}
const ctldRunning = (exec: Executor) => ok(exec, ['service', 'ctld', 'onestatus']);

/** Target → LUN number → path, as `name:n=path` lines (for a readable comparison) */
const lunLines = (served: Map<string, Map<number, string>>, skip: string) =>
  [...served]
    .filter(([t]) => t !== skip)
    .flatMap(([t, luns]) => (luns.size ? [...luns].map(([n, p]) => `${t}:${n}=${p}`) : [`${t}:-`]))
    .sort();

interface Before {
  conf: string | null;
  running: boolean;
  /** ctld_enable's value, and the rc.conf file whose assignment gives it (null: only /etc/defaults/rc.conf) */
  enable: { value: string; file: string | null };
  rcConfExisted: boolean;
}

/** `sysrc -n ctld_enable` and `sysrc -n -F ctld_enable` (sysrc.subr f_sysrc_find: the file of the last assignment) */
async function readEnable(exec: Executor): Promise<Before['enable']> {
  const value = (await runChecked(exec, ['sysrc', '-n', 'ctld_enable'])).trim();
  const file = (await runChecked(exec, ['sysrc', '-n', '-F', 'ctld_enable'])).trim();
  return { value, file: file === '' || file === '/etc/defaults/rc.conf' ? null : file };
}

/** Puts ctl.conf and ctld back as they were; each step only when it differs (so it can run again). */
async function restoreCtl(exec: Executor, b: Before, backup: string, tmp: string, scratch: string): Promise<void> {
  const now = await readOrNull(exec, CTL_CONF);
  const changed = now !== b.conf;
  if (changed) {
    if (b.conf === null) await runChecked(exec, ['rm', '-f', CTL_CONF]);
    else {
      await runChecked(exec, ['cp', backup, tmp]);
      await runChecked(exec, ['mv', tmp, CTL_CONF]);
    }
  }
  const running = await ctldRunning(exec);
  if (!b.running) {
    if (running) await runChecked(exec, ['service', 'ctld', 'onestop']);
    return;
  }
  if (!running) await runChecked(exec, ['service', 'ctld', 'onestart']);
  else if (changed || (await servedLuns(exec)).has(scratch)) await runChecked(exec, ['service', 'ctld', 'onereload']);
}

/** Sets ctld_enable back (only when it differs from before). */
async function restoreEnable(exec: Executor, b: Before): Promise<void> {
  const now = await readEnable(exec);
  if (now.value === b.enable.value && now.file === b.enable.file) return;
  if (b.enable.file === null) {
    await runChecked(exec, ['sysrc', '-x', 'ctld_enable']);
    // sysrc appended to an /etc/rc.conf that was not there: remove it again if that left it empty
    if (!b.rcConfExisted && (await readOrNull(exec, RC_CONF)) === '') await runChecked(exec, ['rm', '-f', RC_CONF]);
  } else await runChecked(exec, ['sysrc', '-f', b.enable.file, `ctld_enable=${b.enable.value}`]);
}

/** The host's ctl.conf in the model, or the reason it does not fit (then the scenario is skipped). */
function modelOf(conf: string | null): IscsiConfig {
  if (conf === null) return { portalGroups: [], targets: [] };
  let reading: ReturnType<typeof ctlConfModel>;
  try {
    reading = ctlConfModel(parseCtlConf(conf));
  } catch (e) {
    if (e instanceof CtlConfError) throw new SkipScenario(`an ${CTL_CONF} ctld accepts (ctld: ${e.message || 'configuration error'})`);
    throw e;
  }
  if ('unfit' in reading) throw new SkipScenario(`an ${CTL_CONF} the iscsi.apply-config model holds whole (it has ${reading.unfit})`);
  return reading.config;
}

export const iscsiScenario: Scenario = {
  name: 'iscsi',
  title: 'iscsi.apply-config: scratch target iqn…:hm-check-<id> on a zvol, served, removed; ctl.conf restored (--iscsi)',
  optIn: 'iscsi',
  async run(ctx: ScenarioContext) {
    if (!(await ok(ctx.exec, ['which', 'ctld']))) throw new SkipScenario('ctld(8)');
    if (!(await ok(ctx.exec, ['which', 'ctladm']))) throw new SkipScenario('ctladm(8)');
    const id = ctx.options.id;
    const name = `hm-check-${id}`;
    const target = `${IQN_PREFIX}:${name}`;
    const dir = `${SCRATCH_DIR}/${name}-iscsi`;
    const pool = `${ctx.options.scratchPool}-iscsi`;
    const zvol = `${pool}/${name}`;
    const backup = `${dir}/ctl.conf`;
    const tmp = `/etc/.ctl.conf.${name}`;

    const conf = await readOrNull(ctx.exec, CTL_CONF);
    const model = modelOf(conf);
    if (model.targets.some((t) => t.name.toLowerCase() === target)) throw new Error(`${CTL_CONF} has a target ${target} already; not touching it`);
    const before: Before = {
      conf,
      running: await ctldRunning(ctx.exec),
      enable: await readEnable(ctx.exec),
      rcConfExisted: (await readOrNull(ctx.exec, RC_CONF)) !== null,
    };
    const servedBefore = before.running ? lunLines(await servedLuns(ctx.exec), target) : [];

    await createFilePool(ctx, { pool, dir, vdevs: [`${dir}/vdev0`], mountpoint: `${dir}/mnt` });
    if (conf !== null) await runChecked(ctx.exec, ['cp', CTL_CONF, backup]);
    ctx.cleanup(`zfs destroy ${zvol}`, async (exec) => {
      if (!(await ok(exec, ['zfs', 'list', '-H', '-o', 'name', zvol]))) return;
      // after the restore's reload: not while ctld may still hold the zvol open as the scratch LUN
      if ((await ctldRunning(exec)) && !(await untilNotServed(exec, target)))
        throw new Error(`not destroying ${zvol}: ctld still serves ${target} from it; reload ctld, then zfs destroy ${zvol}`);
      await runChecked(exec, ['zfs', 'destroy', zvol]);
    });
    ctx.cleanup('ctld_enable restored', (exec) => restoreEnable(exec, before));
    ctx.cleanup(`${CTL_CONF} restored, ctld ${before.running ? 'reloaded' : 'stopped'}`, (exec) => restoreCtl(exec, before, backup, tmp, target));
    ctx.note(
      `${CTL_CONF}: ${conf === null ? 'none' : `${model.targets.length} targets, ${model.portalGroups.length} portal groups`}; ctld ${before.running ? 'running' : 'not running'}, ctld_enable=${before.enable.value}`,
    );

    await runChecked(ctx.exec, ['zfs', 'create', '-V', ZVOL_SIZE, zvol]);
    // the device node comes a moment after `zfs create` returns (OpenZFS makes zvol minors on a taskq); ctld
    // would not find the LUN's path before it
    for (let n = 0; !(await ok(ctx.exec, ['ls', `/dev/zvol/${zvol}`])); n++) {
      if (n === DEV_WAIT_TRIES) throw new Error(`/dev/zvol/${zvol} did not appear after zfs create`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const portalGroup = model.portalGroups[0]?.name ?? name;
    const config: IscsiConfig = {
      portalGroups: model.portalGroups.length ? model.portalGroups : [{ name, discoveryAuthGroup: 'no-access', listen: ['127.0.0.1'] }],
      targets: [...model.targets, { name: target, alias: name, authGroup: 'no-access', portalGroup, luns: [{ number: 0, zvol }] }],
    };
    ctx.note(`created zvol ${zvol} (${ZVOL_SIZE}); adding target ${target} to portal group ${portalGroup}`);
    await runJob(ctx, 'iscsi.apply-config', { config });

    const served = await servedLuns(ctx.exec);
    const path = served.get(target)?.get(0);
    if (path !== `/dev/zvol/${zvol}`) throw new Error(`ctladm does not show ${target} LUN 0 on /dev/zvol/${zvol} (${path ?? 'not served'})`);
    const others = lunLines(served, target);
    if (before.running && others.join(' ') !== servedBefore.join(' '))
      throw new Error(`the host's own targets changed: served ${others.join(', ') || 'nothing'} (before: ${servedBefore.join(', ') || 'nothing'})`);
    const ownTargets = new Set(others.map((l) => l.slice(0, l.lastIndexOf(':')))).size;
    const ownLuns = others.filter((l) => !l.endsWith(':-')).length;
    ctx.note(`served: ${target} LUN 0 -> /dev/zvol/${zvol}; the host's own ${ownTargets} targets and ${ownLuns} LUNs served as before`);

    await restoreCtl(ctx.exec, before, backup, tmp, target);
    const after = await readOrNull(ctx.exec, CTL_CONF);
    if (after !== conf) throw new Error(`${CTL_CONF} differs from the original after restoring it`);
    if (before.running) {
      // the reload is applied by ctld's main loop a moment later
      if (!(await untilNotServed(ctx.exec, target))) throw new Error(`ctld still serves ${target} 10 s after the reload`);
      const back = await servedLuns(ctx.exec);
      if (lunLines(back, target).join(' ') !== servedBefore.join(' ')) throw new Error(`after the reload ctld serves ${lunLines(back, target).join(', ')}`);
    }
    await restoreEnable(ctx.exec, before);
    await runChecked(ctx.exec, ['zfs', 'destroy', zvol]);
    return `${target} LUN 0 on ${zvol}: applied (iscsi.apply-config), served; ${CTL_CONF} ${conf === null ? 'removed again' : 'restored byte for byte'}, ctld ${before.running ? 'reloaded' : 'stopped'}, ctld_enable=${before.enable.value}; ${model.targets.length} existing targets kept`;
  },
};
