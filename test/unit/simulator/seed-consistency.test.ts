import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SimHost } from '#shared/seed/host/schema';
import { DEFAULT_PROFILE, libvirtVersionOf } from '#simulator/profiles';
import { guestAgentChannelMissing } from '#shared/agent-api/capability-rules';
import { seedDomainXml, startRefusal, type SimVm } from '#simulator/commands/virsh-model';

/**
 * The shipped seeds (the demo npm start loads, the examples) describe hosts that could exist: what they say
 * runs is what their host's libvirt can start, and the demo's jails can move to its other member.
 */
const SEEDS = ['shared/seed/demo.json', ...readdirSync('shared/seed/examples').map((f) => join('shared/seed/examples', f))];
interface Seed {
  nodes?: Array<{ id: string; name: string; status?: string }>;
  hosts?: Record<string, SimHost & { vms?: SimVm[] }>;
}
const seedOf = (file: string): Seed => JSON.parse(readFileSync(file, 'utf8'));

test.each(SEEDS)('%s: every running VM is one its host libvirt can start (virsh start, bhyve_command.c)', (file) => {
  const refused = Object.entries(seedOf(file).hosts ?? {}).flatMap(([id, h]) => {
    // a host without a profile gets the default one (HM_SIM_PROFILE unset, as under npm start)
    const libvirtVersion = libvirtVersionOf({ ...h, profile: h.profile ?? DEFAULT_PROFILE });
    return (h.vms ?? [])
      .filter((vm) => vm.state !== 'shut off' && vm.state !== 'orphaned')
      .map((vm) => ({ host: id, vm: vm.name, refusal: startRefusal(seedDomainXml(vm), libvirtVersion) }))
      .filter((r) => r.refusal !== null);
  });
  expect(refused).toEqual([]);
});

test('demo: every other member can receive fbsd-01’s jails (the parent of each jail dataset exists there, none of the dataset itself)', () => {
  const demo = seedOf('shared/seed/demo.json');
  const source = demo.nodes!.find((n) => n.name === 'fbsd-01')!;
  const members = demo.nodes!.filter((n) => n.id !== source.id && (n.status ?? 'member') === 'member');
  expect(members.map((n) => n.name)).toEqual(['fbsd-03']);
  const jails = (demo.hosts![source.id].jails ?? []).filter((j) => j.dataset);
  expect(jails.map((j) => j.ctid)).toContain(101);
  for (const target of members) {
    const names = new Set(demo.hosts![target.id].datasets.map((d) => d.name));
    const missing = jails.filter((j) => !names.has(j.dataset!.slice(0, j.dataset!.lastIndexOf('/'))) || names.has(j.dataset!)).map((j) => j.dataset);
    expect({ target: target.name, missing }).toEqual({ target: target.name, missing: [] });
  }
});

test('demo: VM 201 can be given the guest agent channel (E5) and still start — fbsd-01 runs libvirt 12.4 from pkg on 14.3', () => {
  const demo = seedOf('shared/seed/demo.json');
  const [id, host] = Object.entries(demo.hosts!).find(([, h]) => (h.vms ?? []).some((vm) => vm.rid === 201))!;
  expect(demo.nodes!.find((n) => n.id === id)).toMatchObject({ name: 'fbsd-01' });
  const version = libvirtVersionOf({ ...host, profile: host.profile ?? DEFAULT_PROFILE });
  expect(guestAgentChannelMissing(version)).toBeNull();
  const vm = host.vms!.find((v) => v.rid === 201)!;
  expect(startRefusal(seedDomainXml({ ...vm, guestAgent: true }), version)).toBeNull();
});
