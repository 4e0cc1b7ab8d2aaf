import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { runChecked } from '#agent/executors/executor';
import { SimulatorExecutor } from '#simulator/executor';
import { dhms, getopt, nicenum, UsageError } from '#simulator/format';
import { hostSchema } from '#shared/seed/host/schema';
import { registerCommand } from '#simulator/registry';
import { loadSeedHost } from '#simulator/seed';
import { demoHost, host, simulate, T0 } from './sim-helper.ts';

const ROOT = join(__dirname, '../../..');

describe('formatting like libzfs', () => {
  it('nicenum as the samples show it', () => {
    expect(nicenum(2390753, 'bytes')).toBe('2.28M');
    expect(nicenum(781 * 2 ** 20, 'bytes')).toBe('781M');
    expect(nicenum(0, 'bytes')).toBe('0B');
    expect(nicenum(1.61 * 2 ** 40)).toBe('1.61T');
    expect(nicenum(11.3 * 1024)).toBe('11.3K');
    expect(nicenum(1024)).toBe('1K');
    expect(nicenum(881, 'time')).toBe('881ns');
    expect(nicenum(1500, 'time')).toBe('1us');
    expect(nicenum(0, 'time')).toBe('-');
    expect(dhms(1)).toBe('00:00:01');
    expect(dhms(4 * 86400 + 2 * 3600 + 6 * 60 + 31)).toBe('4 days 02:06:31');
  });

  it('getopt: clustered flags, attached and separate arguments, options after operands', () => {
    const o = getopt(['-Hpo', 'name,guid', 'tank', '-t', 'volume'], 'Hpo:t:');
    expect([...o.flags]).toEqual(['H', 'p']);
    expect(Object.fromEntries(o.values)).toEqual({ o: 'name,guid', t: 'volume' });
    expect(o.operands).toEqual(['tank']);
    expect(() => getopt(['-Z'], 'H')).toThrow(UsageError);
    expect(() => getopt(['-o'], 'o:')).toThrow(UsageError);
  });
});

describe('seed hosts', () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(hostSchema);

  it('the demo host is valid; a broken host is not', () => {
    expect(validate(demoHost())).toBe(true);
    const bad = demoHost() as Record<string, unknown>;
    bad.cpus = 0;
    (bad.pools as { vdevs: unknown[] }[])[0].vdevs = [];
    expect(validate(bad)).toBe(false);
    expect(validate.errors!.map((e) => e.instancePath).sort()).toEqual(['/cpus', '/pools/0/vdevs']);
  });

  it("the demo seed describes the demo node's host: valid, ready for a device replacement", async () => {
    const seed = JSON.parse(readFileSync(join(ROOT, 'shared/seed/demo.json'), 'utf8'));
    const demo = loadSeedHost(seed, '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01');
    expect(validate(demo)).toBe(true);
    const h = simulate(demo);
    expect(await h.exec.run(['zpool', 'replace', 'tank', 'da1', 'da3'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await runChecked(h.exec, ['sysctl', '-t', 'kern.maxfiles', 'vfs.zfs.arc_max', 'kern.ostype', 'net.inet.ip.forwarding'])).split('\n')).toEqual([
      'kern.maxfiles: integer',
      'vfs.zfs.arc_max: unsigned long',
      'kern.ostype: string',
      'net.inet.ip.forwarding: integer',
      '',
    ]);
  });

  it('picks a host out of a seed file by node id', () => {
    const h = demoHost();
    expect(loadSeedHost({ hosts: { 'node-a': h } }).hostname).toBe(h.hostname);
    expect(loadSeedHost({ hosts: { a: h, b: { ...h, hostname: 'b' } } }, 'b').hostname).toBe('b');
    expect(loadSeedHost(h)).toBe(h);
    expect(() => loadSeedHost({ hosts: { a: h, b: h } })).toThrow(/several hosts/);
  });
});

describe('the simulated host', () => {
  it('creates its state from the seed (GUIDs, boot time) and keeps changes across instances', async () => {
    const seed = host({
      disks: [
        { name: 'ada0', sizeBytes: 1e12 },
        { name: 'ada1', sizeBytes: 1e12 },
      ],
      pools: [{ name: 'p', vdevs: [{ type: 'disk', name: 'ada0' }], allocatedBytes: 1 }],
    });
    const h = simulate(seed);
    await runChecked(h.exec, ['zpool', 'replace', 'p', 'ada0', 'ada1']);
    const state = JSON.parse(readFileSync(h.statePath, 'utf8'));
    expect(state.bootTimeMs).toBe(T0 - 3 * 24 * 3600 * 1000);
    expect(state.pools[0].guid).toMatch(/^[1-9]\d*$/);
    expect(state.pools[0].vdevs[0].type).toBe('replacing');
    // the seed object was not touched
    expect(seed.pools[0].guid).toBeUndefined();
    // a second simulator on the same file (another process would do the same) sees the replace finish
    const again = new SimulatorExecutor({ statePath: h.statePath, now: () => T0 + 60_000, resilverMs: 1000 });
    expect(await runChecked(again, ['zpool', 'status', '-x'])).toBe('all pools are healthy\n');
    expect(JSON.parse(readFileSync(h.statePath, 'utf8')).pools[0].vdevs[0]).toMatchObject({ type: 'disk', name: 'ada1' });
  });

  it('refuses to start without state or seed', async () => {
    const ex = new SimulatorExecutor({ statePath: join(tmpdir(), `hm-missing-${process.pid}.json`) });
    const res = await ex.run(['zpool', 'list']);
    expect(res.code).toBe(70);
    expect(res.stderr).toMatch(/does not exist and no seed host was given/);
  });

  it("answers an unknown command like sh (the executor: like execFile's ENOENT), and a command by its path", async () => {
    const h = simulate(demoHost());
    expect(await h.exec.run(['frobnicate', '-x'])).toEqual({ code: 127, stdout: '', stderr: 'frobnicate: not found\n' });
    expect(await h.exec.simulator.run(['frobnicate', '-x'])).toEqual({ code: 127, stdout: '', stderr: 'sh: frobnicate: not found\n' });
    expect((await h.exec.run(['/sbin/zpool', 'list', '-H', '-o', 'name'])).stdout).toBe('tank\nzroot\n');
    expect((await h.exec.run(['zpool', 'frob'])).code).toBe(2);
  });

  it('serialises commands: two replaces racing for the same free disk, one wins', async () => {
    const h = simulate(demoHost());
    const [a, b] = await Promise.all([h.exec.run(['zpool', 'replace', 'tank', 'da1', 'da3']), h.exec.run(['zpool', 'replace', 'tank', 'da2', 'da3'])]);
    expect([a.code, b.code].sort()).toEqual([0, 1]);
    expect((a.code ? a : b).stderr).toMatch(/\/dev\/da3 is part of active pool 'tank'/);
  });

  it('a command that throws is a simulator fault (exit 70) and changes nothing', async () => {
    registerCommand('test-throw', (ctx) => {
      ctx.state.hostname = 'half-done';
      throw new Error('boom');
    });
    const h = simulate(demoHost());
    const res = await h.exec.run(['test-throw']);
    expect(res.code).toBe(70);
    expect(res.stderr).toMatch(/^simulator: test-throw: Error: boom/);
    expect((await runChecked(h.exec, ['sysctl', '-n', 'kern.hostname'])).trim()).toBe('fbsd-demo-1.example.net');
  });
});

describe('simulator CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hm-sim-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const seedFile = join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify({ hosts: { 'node-1': demoHost() } }));

  const cli = (state: string, args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'simulator/cli.ts'), ...args], {
        cwd: ROOT,
        env: { ...process.env, HM_SIM_STATE: state, HM_SIM_SEED: seedFile, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it("prints stdout and stderr and exits with the command's code", async () => {
    const state = join(dir, 'a.json');
    const ok = await cli(state, ['zpool', 'list', '-H', '-o', 'name,health']);
    expect(ok).toEqual({ code: 0, stdout: 'tank\tONLINE\nzroot\tONLINE\n', stderr: '' });
    expect(existsSync(state)).toBe(true);
    const bad = await cli(state, ['sysctl', 'kern.ostype=Linux']);
    expect(bad).toEqual({ code: 1, stdout: '', stderr: "sysctl: oid 'kern.ostype' is read only\n" });
  });

  it('several processes changing one host lose no update (lock file)', async () => {
    const state = join(dir, 'b.json');
    // the first of them also creates the state from the seed: under the lock, so no one overwrites another
    const values = ['kern.maxfiles=1111', 'kern.maxfilesperproc=2222', 'net.inet.ip.forwarding=1', 'vfs.zfs.txg.timeout=9'];
    const results = await Promise.all(values.map((v) => cli(state, ['sysctl', v])));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const sim = new SimulatorExecutor({ statePath: state });
    expect(await runChecked(sim, ['sysctl', '-n', 'kern.maxfiles', 'kern.maxfilesperproc', 'net.inet.ip.forwarding', 'vfs.zfs.txg.timeout'])).toBe(
      '1111\n2222\n1\n9\n',
    );
    expect(existsSync(`${state}.lock`)).toBe(false);
  });

  it('needs HM_SIM_STATE', async () => {
    const res = await cli('', ['zpool', 'list']);
    expect(res.code).toBe(64);
    expect(res.stderr).toMatch(/HM_SIM_STATE/);
  });
});
