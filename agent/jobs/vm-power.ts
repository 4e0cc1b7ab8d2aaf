import type { Executor } from '../executors/executor.ts';
import { destroyDomain, domState, shutdownDomain, startDomain } from '../drivers/virsh.ts';
import { vmDomainUuid } from '../drivers/vm-lookup.ts';
import type { JobContext, JobHandler } from './job.ts';

/** How often a graceful stop asks libvirt whether the guest has powered off. */
const POLL_MS = 500;

const isUp = (state: string) => state !== 'shut off' && state !== 'crashed';

/** Waits `ms`, or less when the task is stopped (cancelled or the agent shutting down). */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * A graceful stop: `virsh shutdown` (an ACPI power-button press), then libvirt is asked until the domain is
 * shut off; after `waitTime` seconds (E6) a guest still running is destroyed. Returns which of the two ended it.
 */
async function gracefulStop(ctx: JobContext, uuid: string, waitTime: number, from: number, to: number): Promise<'acpi' | 'forced'> {
  await ctx.progress('shutting down (ACPI)', from, `virsh shutdown ${uuid}`);
  await shutdownDomain(ctx.exec, uuid);
  const deadline = Date.now() + waitTime * 1000;
  while (Date.now() < deadline) {
    if (ctx.signal.aborted) throw new Error(`stopped while waiting for the guest to power off`);
    const state = await domState(ctx.exec, uuid);
    if (state === null || !isUp(state)) return 'acpi';
    const spent = 1 - (deadline - Date.now()) / (waitTime * 1000);
    await ctx.progress('waiting for the guest to power off', from + (to - from) * Math.min(1, spent));
    await pause(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), ctx.signal);
  }
  const state = await domState(ctx.exec, uuid);
  if (state === null || !isUp(state)) return 'acpi';
  await ctx.progress('destroying (shutdown wait time passed)', to, `the guest did not power off within ${waitTime} s: virsh destroy ${uuid}`);
  await destroyDomain(ctx.exec, uuid);
  return 'forced';
}

/** The host's state of the VM's domain after acting (what the result reports). */
async function stateOf(exec: Executor, uuid: string): Promise<string> {
  return (await domState(exec, uuid)) ?? 'orphaned';
}

/**
 * VM power (agent/jobs/registry.ts `vm.power`). The VM's domain is addressed by UUID (agent/drivers/virsh.ts
 * says why). The host's own state decides: a start of a running VM, a stop of a shut-off one changes nothing
 * (`changed: false`). `restart` is a graceful stop (forced after the wait) and a start, not `virsh reboot`:
 * libvirt's bhyve reboot is the same ACPI press with a restart on power-off (bhyve_driver.c bhyveDomainReboot),
 * so a guest that ignores the button would never reboot, and nothing would say so.
 *
 * Cancelled: the VM is put back as it was (started again if it was running and is now shut off; shut off
 * again if the start went through), then the task ends `cancelled`.
 */
export const vmPower: JobHandler<'vm.power'> = async (ctx, p) => {
  await ctx.progress('checking', 5);
  const uuid = await vmDomainUuid(ctx.exec, p.rid, p.domain);
  const before = uuid === null ? null : await domState(ctx.exec, uuid);
  if (uuid === null || before === null) throw new Error(`vm_orphaned: libvirt does not define domain ${p.domain} (vm ${p.rid}); nothing changed`);
  const wasUp = isUp(before);
  let stoppedBy: 'acpi' | 'forced' | null = null;
  let changed = false;
  try {
    if (p.action === 'start' && !wasUp) {
      await ctx.progress('starting', 40, `virsh start ${uuid}`);
      await startDomain(ctx.exec, uuid);
      changed = true;
    } else if ((p.action === 'stop' || p.action === 'poweroff') && wasUp) {
      if (p.action === 'stop') stoppedBy = await gracefulStop(ctx, uuid, p.waitTime, 10, 90);
      else {
        await ctx.progress('powering off', 40, `virsh destroy ${uuid}`);
        await destroyDomain(ctx.exec, uuid);
        stoppedBy = 'forced';
      }
      changed = true;
    } else if (p.action === 'restart') {
      if (wasUp) stoppedBy = await gracefulStop(ctx, uuid, p.waitTime, 10, 70);
      changed = true;
      if (ctx.signal.aborted) throw new Error('stopped before the start');
      await ctx.progress('starting', 80, `virsh start ${uuid}`);
      await startDomain(ctx.exec, uuid);
    }
  } catch (err) {
    if (ctx.cancelled?.aborted) await putBack(ctx.exec, uuid, wasUp);
    throw err;
  }
  if (ctx.cancelled?.aborted) {
    await putBack(ctx.exec, uuid, wasUp);
    throw new Error(`vm ${p.rid} is ${await stateOf(ctx.exec, uuid)} again, as before the request`);
  }
  const state = await stateOf(ctx.exec, uuid);
  await ctx.progress(
    'done',
    100,
    `vm ${p.rid}: ${state}${stoppedBy ? ` (stopped: ${stoppedBy === 'acpi' ? 'the guest powered off' : 'destroyed after the wait'})` : ''}`,
  );
  return { rid: p.rid, action: p.action, state, changed, stoppedBy };
};

/** A cancelled request's undo: the VM as it was before (commands run after the cancel are not stopped). */
async function putBack(exec: Executor, uuid: string, wasUp: boolean): Promise<void> {
  const now = await domState(exec, uuid);
  if (now === null) return;
  if (wasUp && !isUp(now)) await startDomain(exec, uuid);
  else if (!wasUp && isUp(now)) await destroyDomain(exec, uuid);
}
