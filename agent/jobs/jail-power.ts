import { findJail, isRunning, startJail, stopJail } from '../drivers/jail.ts';
import type { JobHandler } from './job.ts';

/**
 * Jail power (agent/jobs/registry.ts `jail.power`): the jail as its conf (/etc/jail.conf.d/<name>.conf)
 * defines it — `jail -f <conf> -c <name>` runs exec.prestart, start, poststart (the E3 hooks, and the E4
 * limits script that pins its CPUs), `jail -f <conf> -r <name>` exec.prestop, stop, poststop (usr.sbin/jail
 * jail.c startcommands[]/stopcommands[]). Not `service jail start <name>`: rc.d/jail refuses `start` unless
 * rc.conf has jail_enable=YES (which the agent does not set: the operator decides what starts at boot), and
 * its `onestart` runs the same `jail -f <conf> -c` after finding the same conf file.
 *
 * The host's own state decides (the store's may be a heartbeat old): a start of a running jail, a stop of a
 * stopped one changes nothing (`changed: false`). A restart of a stopped jail starts it. A failing hook fails
 * the task with jail(8)'s own message (`jail: <name>: <command>: failed`): a failed start leaves the jail
 * removed again, a failed prestop/stop leaves it running.
 *
 * Cancelled while running: the jail is put back as it was (started again after a stop, stopped after a start).
 */
export const jailPower: JobHandler<'jail.power'> = async (ctx, p) => {
  await ctx.progress('checking', 5);
  const j = await findJail(ctx.exec, p.ctid);
  const conf = j.files.conf;
  const wasRunning = await isRunning(ctx.exec, j.name);
  let changed = false;
  const stop = async (percent: number) => {
    await ctx.progress('stopping', percent, `jail -f ${conf} -r ${j.name}`);
    await stopJail(ctx.exec, j.name, conf);
    changed = true;
  };
  const start = async (percent: number) => {
    await ctx.progress('starting', percent, `jail -f ${conf} -c ${j.name}`);
    await startJail(ctx.exec, j.name, conf);
    changed = true;
  };
  try {
    if (p.action === 'start' && !wasRunning) await start(40);
    else if (p.action === 'stop' && wasRunning) await stop(40);
    else if (p.action === 'restart') {
      if (wasRunning) await stop(20);
      if (ctx.cancelled?.aborted) throw new Error('stopped before the start');
      await start(60);
    }
  } catch (err) {
    if (ctx.cancelled?.aborted) await putBack();
    throw err;
  }
  if (ctx.cancelled?.aborted) {
    await putBack();
    throw new Error(`jail ${p.ctid} is ${wasRunning ? 'running' : 'stopped'} again, as before the request`);
  }
  const running = await isRunning(ctx.exec, j.name);
  await ctx.progress('done', 100, `jail ${j.name}: ${running ? 'running' : 'stopped'}`);
  return { ctid: p.ctid, action: p.action, state: running ? 'running' : 'stopped', changed };

  async function putBack(): Promise<void> {
    const now = await isRunning(ctx.exec, j.name);
    if (wasRunning && !now) await startJail(ctx.exec, j.name, conf);
    else if (!wasRunning && now) await stopJail(ctx.exec, j.name, conf);
  }
};
