import { randomUUID } from 'node:crypto';
import { guestAgentChannelMissing } from '#shared/agent-api/capability-rules';
import { runChecked, type Executor } from '../../executors/executor.ts';
import { DomainXml } from '../../drivers/domain-xml.ts';
import { hasCdrom, readGuestAgent, readVnc } from '../../drivers/domain-xml-options.ts';
import { LIBVIRT_URI, define, destroyDomain, domState, dumpXml, findDomain, listUuids, domName, startDomain } from '../../drivers/virsh.ts';
import { listRegistrations, vmPaths } from '../../drivers/vm-runtime.ts';
import { writeText } from '../../drivers/host-files.ts';
import { runJob } from '../jobs.ts';
import { SkipScenario, type Scenario } from '../runner.ts';
import { makeDirsUndone, removedAtCleanup } from '../scratch-dirs.ts';
import { SCRATCH_DIR } from './scratch-pool.ts';

/**
 * A throwaway bhyve domain, defined through libvirt (`virsh -c bhyve:///system define`) and never started unless
 * --start-vm. The product names a VM's domain by its RID (guest id 1–9999); the kit takes the highest RID in
 * 9000–9999 that libvirt does not define and no registration (/var/db/hostmgr/vms/<rid>) holds, and gives the
 * domain the title hm-check-<id>. No disk, no NIC: a UEFI loader only (VNC needs it). Through the agent's jobs:
 * VNC on (127.0.0.1), cloud-init seed attached (makefs), the guest agent channel on (only with libvirt ≥ 12.4;
 * else that step is reported skipped with the capability), each read back from `virsh dumpxml`; then
 * `virsh undefine` and the `vm.purge-registration` job, which removes the registration directory.
 */
const UEFI = '/usr/local/share/uefi-firmware/BHYVE_UEFI.fd';

function domainXml(rid: number, title: string): string {
  return [
    `<domain type='bhyve'>`,
    `  <name>${rid}</name>`,
    `  <uuid>${randomUUID()}</uuid>`,
    `  <title>${title}</title>`,
    `  <memory unit='KiB'>262144</memory>`,
    `  <vcpu placement='static'>1</vcpu>`,
    `  <os><type arch='x86_64'>hvm</type><loader readonly='yes' type='pflash'>${UEFI}</loader></os>`,
    `  <features><acpi/><apic/></features>`,
    `  <clock offset='utc'/>`,
    `  <on_poweroff>destroy</on_poweroff>`,
    `  <devices/>`,
    `</domain>`,
    '',
  ].join('\n');
}

/**
 * Why bhyve cannot run the scratch domain here, or null: vmm.ko not loaded (bhyve's vm_create fails without
 * /dev/vmm) or the UEFI firmware the domain boots from missing (pkg install bhyve-firmware). `--start-vm` then skips
 * the start with that reason; what it cannot do on this host is not the product failing.
 */
async function whyNoStart(exec: Executor): Promise<string | null> {
  if ((await exec.run(['kldstat', '-q', '-m', 'vmm'])).code !== 0) return 'vmm.ko is not loaded (kldload vmm, or vmm_load="YES" in /boot/loader.conf)';
  if ((await exec.run(['ls', UEFI])).code !== 0) return `no UEFI firmware at ${UEFI} (pkg install bhyve-firmware)`;
  return null;
}

async function definedNames(exec: Executor): Promise<Set<string>> {
  const names = new Set<string>();
  for (const uuid of await listUuids(exec)) {
    const n = await domName(exec, uuid);
    if (n) names.add(n);
  }
  return names;
}

async function freeRid(exec: Executor): Promise<number> {
  const names = await definedNames(exec);
  const registered = new Set(await listRegistrations(exec));
  for (let rid = 9999; rid >= 9000; rid--) if (!names.has(String(rid)) && !registered.has(rid)) return rid;
  throw new Error('every RID in 9000-9999 is taken; not touching any');
}

export const vmScenario: Scenario = {
  name: 'vm',
  title: 'bhyve domain (RID 9000-9999, title hm-check-<id>): VNC, cloud-init, QGA read back, undefined',
  async run(ctx) {
    if (ctx.caps.libvirtVersion === null) throw new SkipScenario(`libvirt (virsh -c ${LIBVIRT_URI})`);
    const title = `hm-check-${ctx.options.id}`;
    const rid = await freeRid(ctx.exec);
    const domain = String(rid);
    const file = `${SCRATCH_DIR}/${title}-vm.xml`;
    const skipped: string[] = [];

    // the registration directory is named by the RID the kit picked as free; /var/db/hostmgr above it is the agent's
    await makeDirsUndone(ctx, vmPaths(rid).dir, vmPaths(rid).dir);
    ctx.cleanup(`virsh undefine ${domain}`, async (exec) => {
      const uuid = await findDomain(exec, domain);
      if (uuid === null) return;
      if ((await domState(exec, uuid)) !== 'shut off') await destroyDomain(exec, uuid);
      if ((await findDomain(exec, domain)) !== null) await runChecked(exec, ['virsh', '-c', LIBVIRT_URI, 'undefine', uuid]);
    });
    removedAtCleanup(ctx, file);
    await writeText(ctx.exec, file, domainXml(rid, title), '600');
    await define(ctx.exec, file);
    const uuid = await findDomain(ctx.exec, domain);
    if (uuid === null) throw new Error(`virsh define ${file} succeeded but no domain ${domain} is listed`);
    ctx.note(`defined domain ${domain} (${title}, ${uuid})`);

    await runJob(ctx, 'vm.vnc', { rid, domain, enabled: true, bind: '127.0.0.1', port: 5900 + (rid % 1000), resolution: '800x600', wait: false });
    await runJob(ctx, 'vm.cloud-init', { rid, domain, data: `#cloud-config\nhostname: ${title}\n`, metadata: `instance-id: ${title}\n`, networkConfig: '' });
    const qgaMissing = guestAgentChannelMissing(ctx.caps.libvirtVersion);
    if (qgaMissing) skipped.push(`QGA skipped: ${qgaMissing}`);
    else await runJob(ctx, 'vm.guest-agent', { rid, domain, enabled: true });

    const d = DomainXml.parse(await dumpXml(ctx.exec, uuid));
    const vnc = readVnc(d);
    if (!vnc.enabled || vnc.port !== 5900 + (rid % 1000)) throw new Error(`VNC read back: ${JSON.stringify(vnc)}`);
    if (!hasCdrom(d, vmPaths(rid).cloudInitIso)) throw new Error(`the cloud-init seed ${vmPaths(rid).cloudInitIso} is not attached`);
    if (!qgaMissing && !readGuestAgent(d)) throw new Error('the guest agent channel is not in the definition');

    const cannotStart = ctx.options.startVm ? await whyNoStart(ctx.exec) : null;
    if (cannotStart) skipped.push(`start skipped: ${cannotStart}`);
    if (ctx.options.startVm && !cannotStart) {
      await startDomain(ctx.exec, uuid);
      const state = await domState(ctx.exec, uuid);
      if (state !== 'running') throw new Error(`after virsh start the domain is ${state}`);
      await destroyDomain(ctx.exec, uuid);
      ctx.note(`started and destroyed domain ${domain}`);
    }

    await runChecked(ctx.exec, ['virsh', '-c', LIBVIRT_URI, 'undefine', uuid]);
    if ((await findDomain(ctx.exec, domain)) !== null) throw new Error(`virsh undefine ${domain} left it defined`);
    await runJob(ctx, 'vm.purge-registration', { rid, domain });
    return [
      `domain ${domain} (${title}): VNC :${vnc.port}, cloud-init seed attached${qgaMissing ? '' : ', QGA channel'}`,
      ctx.options.startVm && !cannotStart ? 'started, destroyed' : 'not started',
      'undefined, registration purged',
      ...skipped,
    ].join('; ');
  },
};
