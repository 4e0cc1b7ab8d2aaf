import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programPath } from '#agent/executors/program-path';
import { collectInventory } from '#agent/collectors/inventory';
import { SimulatorExecutor } from '#simulator/executor';
import { HostSimulator } from '#simulator/simulator';
import { LOGIN_PATH, PROGRAM_DIRS, RC_PATH } from '#simulator/profiles';
import { locateProgram } from '#simulator/program-path';
import { registeredCommands } from '#simulator/registry';
import '#simulator/commands/index';
import { demoSeedHost } from '../../helpers/simulated-host.ts';

const dir = mkdtempSync(join(tmpdir(), 'hm-sim-path-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const state = () => join(dir, `h${++n}.json`);

test('a bare name is found only through a PATH holding its directory; a path only where the program lives', () => {
  expect(locateProgram({}, 'virsh', RC_PATH)).toBeNull();
  expect(locateProgram({}, 'virsh', LOGIN_PATH)).toBe('/usr/local/bin/virsh');
  expect(locateProgram({}, 'zfs', RC_PATH)).toBe('/sbin/zfs');
  expect(locateProgram({}, '/usr/local/bin/virsh', RC_PATH)).toBe('/usr/local/bin/virsh');
  expect(locateProgram({}, '/usr/bin/virsh', LOGIN_PATH)).toBeNull();
  expect(locateProgram({ absentPrograms: ['virsh'] }, 'virsh', LOGIN_PATH)).toBeNull();
});

test('every command the simulator answers says where it lives (PROGRAM_DIRS)', () => {
  expect(registeredCommands().filter((c) => !(c in PROGRAM_DIRS))).toEqual([]);
});

test("HostSimulator answers sh's 127 for a program off its PATH; the executor answers like execFile's ENOENT", async () => {
  const seed = demoSeedHost();
  const sim = new HostSimulator({ statePath: state(), seed });
  expect(await sim.run(['virsh', 'list', '--all'])).toEqual({ code: 127, stdout: '', stderr: 'sh: virsh: not found\n' });
  expect((await new HostSimulator({ statePath: sim.statePath, path: LOGIN_PATH }).run(['virsh', 'list', '--all'])).code).toBe(0);
  const exec = new SimulatorExecutor({ statePath: sim.statePath });
  expect(await exec.run(['virsh', 'list', '--all'])).toEqual({ code: 127, stdout: '', stderr: 'virsh: not found\n' });
});

test('an rc.d service PATH: the inventory\'s VMs fail "not found" unless the agent adds /usr/local/bin', async () => {
  const seed = demoSeedHost();
  expect(seed.vms?.length).toBeGreaterThan(0);
  const statePath = state();
  // what the agent did before: its children inherited the service's PATH
  const before = await collectInventory(new SimulatorExecutor({ statePath, seed, path: RC_PATH }));
  expect(before.vms).toBeUndefined();
  expect(before.collectErrors).toContainEqual(expect.stringMatching(/^vms: virsh: not found/));
  const after = await collectInventory(new SimulatorExecutor({ statePath, path: programPath(undefined, RC_PATH) }));
  expect(after.collectErrors ?? []).toEqual([]);
  expect(after.vms?.length).toBe(seed.vms!.length);
});

test('which(1) and kldstat(8) as their sources answer', async () => {
  const sim = new HostSimulator({
    statePath: state(),
    seed: { ...demoSeedHost(), files: { '/boot/loader.conf': { content: 'vmm_load="YES"\n', mode: '0644' } } },
  });
  // which.c: found ones printed, nothing for a missing one, exit 1 if any is missing
  expect(await sim.run(['which', 'zfs', 'virsh'])).toEqual({ code: 1, stdout: '/sbin/zfs\n', stderr: '' });
  expect(await new HostSimulator({ statePath: sim.statePath, path: LOGIN_PATH }).run(['which', 'virsh'])).toEqual({
    code: 0,
    stdout: '/usr/local/bin/virsh\n',
    stderr: '',
  });
  // kldstat.c: -q -m is silent, 0 or 1; -m without -q warns
  expect(await sim.run(['kldstat', '-q', '-m', 'vmm'])).toEqual({ code: 0, stdout: '', stderr: '' });
  // usage() exits 1, not getopt's customary 2
  expect((await sim.run(['kldstat', '-x'])).code).toBe(1);
  expect(await sim.run(['kldstat', '-q', '-m', 'pf'])).toEqual({ code: 1, stdout: '', stderr: '' });
  expect(await sim.run(['kldstat', '-m', 'pf'])).toEqual({ code: 1, stdout: '', stderr: "kldstat: can't find module pf: No such file or directory\n" });
  expect((await sim.run(['kldstat', '-m', 'vmm'])).stdout).toMatch(/^Id {2}Refs Name\n +\d+ +1 vmm\n$/);
  expect((await sim.run(['kldstat'])).stdout).toMatch(/^Id Refs Address {16}Size Name\n 1 +\d+ 0x[0-9a-f]+ [0-9a-f]+ +kernel\n[\s\S]*vmm\.ko\n$/);
});
