import { runScenarios } from '#agent/check/runner';
import { SCENARIOS } from '#agent/check/scenarios/index';
import { probeCapabilities } from '#agent/drivers/host-capabilities';
import type { SimHost } from '#shared/seed/host/schema';
import { demoSeedHost, simulatedHost } from '../helpers/simulated-host.ts';

/**
 * `--start-vm` on a host that cannot run bhyve (vmm.ko not loaded, or no UEFI firmware for the domain) skips the
 * start with the reason, and the rest of the vm scenario still runs and passes; on a host that can, the domain is
 * started and destroyed.
 */
const UEFI = '/usr/local/share/uefi-firmware/BHYVE_UEFI.fd';

async function vmScenario(extra: Partial<SimHost>) {
  const seed = demoSeedHost() as SimHost & { dirs?: string[] };
  const exec = simulatedHost({ ...seed, dirs: [...(seed.dirs ?? []), '/var/tmp'], ...extra });
  const [result] = await runScenarios(
    exec,
    SCENARIOS.filter((s) => s.name === 'vm'),
    {
      options: { id: 'v7s2', scratchPool: 'hm-check-v7s2', startVm: true, iscsi: false },
      caps: await probeCapabilities(exec),
      signal: new AbortController().signal,
    },
  );
  return result;
}

const withFiles = (files: Record<string, { content: string; mode: string }>) => ({
  files: { ...(demoSeedHost() as SimHost & { files?: Record<string, { content: string; mode?: string }> }).files, ...files },
});

test('without vmm.ko the start is skipped, naming the module; the scenario passes', async () => {
  const r = await vmScenario({ kenv: {} });
  expect(r).toMatchObject({ verdict: 'ok', cleanupErrors: [] });
  expect(r.detail).toContain('not started');
  expect(r.detail).toContain('start skipped: vmm.ko is not loaded');
});

test('with vmm.ko but no UEFI firmware the start is skipped, naming the file', async () => {
  const r = await vmScenario({ kenv: { vmm_load: 'YES' } });
  expect(r).toMatchObject({ verdict: 'ok', cleanupErrors: [] });
  expect(r.detail).toContain(`start skipped: no UEFI firmware at ${UEFI}`);
});

test('with both the domain is started and destroyed', async () => {
  const r = await vmScenario({ kenv: { vmm_load: 'YES' }, ...withFiles({ [UEFI]: { content: 'EFI firmware\n', mode: '444' } }) });
  expect(r).toMatchObject({ verdict: 'ok', cleanupErrors: [] });
  expect(r.detail).toContain('started, destroyed');
  expect(r.detail).not.toContain('start skipped');
});
