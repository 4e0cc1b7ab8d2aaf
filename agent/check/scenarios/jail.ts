import { parseCpusetMask } from '../../drivers/cpuset.ts';
import { runChecked, type Executor } from '../../executors/executor.ts';
import { noHooks } from '#shared/agent-api/jail-hooks';
import { renderJailConf } from '../../drivers/jail-conf.ts';
import { configuredJails, isRunning, jailInventory, startJail, stopJail } from '../../drivers/jail.ts';
import { jailFiles } from '../../drivers/jail-layout.ts';
import { listRunningJails } from '../../drivers/jls.ts';
import { removeMemoryRule } from '../../drivers/rctl.ts';
import { writeText } from '../../drivers/host-files.ts';
import { runJob } from '../jobs.ts';
import { SkipScenario, type Scenario } from '../runner.ts';
import { makeDirsUndone, removedAtCleanup } from '../scratch-dirs.ts';
import { SCRATCH_DIR } from './scratch-pool.ts';

/**
 * A throwaway jail `hm-check-<id>` laid out as the agent lays out a managed jail (jail-layout.ts): its conf
 * /etc/jail.conf.d/hm-check-<id>.conf (renderJailConf, under a free ctid the kit picks: the highest unused in
 * 9000–9999), hooks through the `jail.apply-hooks` job (host-side prestart/poststop, in-jail start through
 * jexec), a CPU limit and — when RACCT is on — a memory limit through `jail.apply-limits`; started and stopped
 * with the agent's jail driver (jail -c / jail -r), read back from the host in between (jls, cpuset -g, rctl).
 *
 * Its root is a directory /var/tmp/hm-check-<id>-jail with what the conf's exec.start/exec.stop and the
 * in-jail hook need: /bin/sh (a copy of /rescue/sh, statically linked; a crunched binary picks its program by
 * its name), an /etc/rc and /etc/rc.shutdown that do nothing, a root user (master.passwd with no password, made
 * into pwd.db by pwd_mkdb -d; exec.clean and jexec -l look root up inside the jail and chdir to /root, jail(8)
 * command.c run_command) and /dev for mount.devfs. Cleanup: the jail
 * stopped, its rctl rule, conf, hook/limits directory, console log and root removed, and every directory the
 * kit had to make (e.g. /etc/jail.conf.d on a host without it).
 */
const MEMORY_LIMIT = 256 * 1024 * 1024;

async function exists(exec: Executor, path: string): Promise<boolean> {
  return (await exec.run(['ls', path])).code === 0;
}

/** The highest ctid in 9000–9999 no managed jail uses and no hook/limits directory holds. */
async function freeCtid(exec: Executor): Promise<number> {
  const used = new Set((await configuredJails(exec)).map((j) => j.ctid));
  for (let ctid = 9999; ctid >= 9000; ctid--) {
    if (used.has(ctid)) continue;
    if (!(await exists(exec, jailFiles(ctid, 'x').dir))) return ctid;
  }
  throw new Error('every ctid in 9000-9999 is taken; not touching any');
}

export const jailScenario: Scenario = {
  name: 'jail',
  title: 'jail hm-check-<id>: hooks, CPU (+ memory with racct) limits, started and stopped, removed',
  async run(ctx) {
    const name = `hm-check-${ctx.options.id}`;
    if ((await exec0(ctx.exec, ['which', 'jail'])) !== 0) throw new SkipScenario('jail(8)');
    if (!(await exists(ctx.exec, '/rescue/sh'))) throw new SkipScenario('/rescue/sh (a static shell for the scratch jail)');
    const ctid = await freeCtid(ctx.exec);
    const files = jailFiles(ctid, name);
    if (await exists(ctx.exec, files.conf)) throw new Error(`${files.conf} exists already; not touching it`);
    if ((await listRunningJails(ctx.exec)).some((j) => j.name === name)) throw new Error(`a jail ${name} runs already; not touching it`);
    const root = `${SCRATCH_DIR}/${name}-jail`;
    if (await exists(ctx.exec, root)) throw new Error(`${root} exists already; not touching it`);
    const consoleLog = `/var/log/jail_console_${name}.log`;
    const memoryBytes = ctx.caps.racct ? MEMORY_LIMIT : 0;

    // undone last first: the jail stops before its files and root go
    await makeDirsUndone(ctx, `${root}/bin`, root);
    await makeDirsUndone(ctx, `${root}/etc`, root);
    await makeDirsUndone(ctx, `${root}/dev`, root);
    await runChecked(ctx.exec, ['cp', '/rescue/sh', `${root}/bin/sh`]);
    await writeText(ctx.exec, `${root}/etc/rc`, '#!/bin/sh\n:\n', '755');
    await writeText(ctx.exec, `${root}/etc/rc.shutdown`, '#!/bin/sh\n:\n', '755');
    // exec.clean and jexec -l look root up inside the jail and chdir to its home (command.c run_command)
    await makeDirsUndone(ctx, `${root}/root`, root);
    await writeText(ctx.exec, `${root}/etc/master.passwd`, 'root:*:0:0::0:0:Charlie &:/root:/bin/sh\n', '600');
    await writeText(ctx.exec, `${root}/etc/group`, 'wheel:*:0:root\n', '644');
    await runChecked(ctx.exec, ['pwd_mkdb', '-d', `${root}/etc`, `${root}/etc/master.passwd`]);
    await makeDirsUndone(ctx, files.hooksDir, files.dir);
    await makeDirsUndone(ctx, '/etc/jail.conf.d');
    removedAtCleanup(ctx, files.conf);
    removedAtCleanup(ctx, consoleLog);
    ctx.cleanup(`rctl -r jail:${name}:memoryuse:deny`, async (exec) => {
      if (ctx.caps.racct) await removeMemoryRule(exec, name);
    });
    ctx.cleanup(`jail -r ${name}`, async (exec) => {
      if (await isRunning(exec, name)) await stopJail(exec, name, files.conf);
    });
    await writeText(ctx.exec, files.conf, renderJailConf({ ctid, name, hostname: name, path: root, dataset: null }), '644');
    ctx.note(`wrote ${files.conf} (ctid ${ctid}), root ${root}`);

    const hooks = noHooks();
    hooks.prestart = { enabled: true, script: `#!/bin/sh\necho ${name} prestart\n` };
    hooks.start = { enabled: true, script: '#!/bin/sh\ntest -x /bin/sh\n' };
    hooks.poststop = { enabled: true, script: `#!/bin/sh\necho ${name} poststop\n` };
    await runJob(ctx, 'jail.apply-hooks', { ctid, name, hooks });
    await runJob(ctx, 'jail.apply-limits', { ctid, name, cpuSet: [0], memoryBytes, applyNow: false });

    await startJail(ctx.exec, name, files.conf);
    if (!(await isRunning(ctx.exec, name))) throw new Error(`jail -c ${name} succeeded but jls does not list it`);
    const inv = (await jailInventory(ctx.exec)).find((j) => j.ctid === ctid);
    if (!inv || inv.state !== 'running') throw new Error(`the inventory reports jail ${ctid} ${inv?.state ?? 'missing'}`);
    const wired = (['prestart', 'start', 'poststop'] as const).filter((p) => inv.hooks[p].enabled);
    if (wired.length !== 3) throw new Error(`hooks read back: ${wired.join(',') || 'none'} enabled, not prestart,start,poststop`);
    if (inv.cpuSet.join(',') !== '0' || inv.memoryBytes !== memoryBytes)
      throw new Error(`limits read back: cpus ${inv.cpuSet.join(',')}, memory ${inv.memoryBytes} (wanted 0, ${memoryBytes})`);
    // the post-start limits script ran: the jail's threads are on CPU 0 (cpuset -g), its memory rule is loaded
    const shown = (await runChecked(ctx.exec, ['cpuset', '-g', '-j', name])).trim();
    // the CPU line, not the memory-domain line under it (which ends in `mask: 0` on any one-domain host)
    const cpus = parseCpusetMask(shown);
    if (cpus?.join(',') !== '0') throw new Error(`cpuset -g -j ${name}: ${shown}`);
    const mask = shown.split('\n')[0];
    if (memoryBytes) {
      const rules = await runChecked(ctx.exec, ['rctl', `jail:${name}`]);
      if (!rules.includes(`jail:${name}:memoryuse:deny=`)) throw new Error(`rctl jail:${name} lists no memoryuse rule: ${rules.trim()}`);
    }
    ctx.note(`${name} running, ${mask}`);

    await stopJail(ctx.exec, name, files.conf);
    if (await isRunning(ctx.exec, name)) throw new Error(`jail -r ${name} left it running`);
    return `${name} (ctid ${ctid}): hooks prestart,start,poststop; cpus 0${memoryBytes ? `, memoryuse ${memoryBytes}` : ', no memory limit (racct off)'}; started, stopped`;
  },
};

async function exec0(exec: Executor, argv: string[]): Promise<number> {
  return (await exec.run(argv)).code;
}
