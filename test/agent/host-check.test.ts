// @tier e2e
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { hostCheckCli } from '#agent/check/cli';
import { doctorCli } from '#agent/doctor/cli';
import { runScenarios, type ScenarioResult } from '#agent/check/runner';
import { SCENARIOS } from '#agent/check/scenarios/index';
import { probeCapabilities } from '#agent/drivers/host-capabilities';
import type { Executor } from '#agent/executors/executor';
import { SshExecutor } from '#agent/executors/ssh';
import { startPeerSsh, type PeerSsh } from '#scripts/stack/peer-ssh';
import { freePort } from '#scripts/stack/ports';
import { SimulatorExecutor } from '#simulator/executor';
import { PROFILES, type ProfileId } from '#simulator/profiles';
import { demoSeedHost } from '../helpers/simulated-host.ts';

/**
 * The host conformance kit against simulated hosts through SSH — the SSH servers `npm start` runs for its
 * simulated hosts (scripts/stack/peer-ssh.ts), reached with the agent's SSH executor — on both host profiles.
 * Every scenario must pass (or be skipped naming the capability), and the host's state file must be byte for
 * byte what it was before: the kit leaves nothing behind, also after a failure mid-scenario and after Ctrl-C.
 */
const ROOT = join(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'hm-host-check-'));
// a scratch pool resilvers in 1.5 s of the simulated hosts' (real) time
process.env.HM_SIM_RESILVER_MS = '1500';

interface Target {
  statePath: string;
  ssh: PeerSsh;
  fingerprint: string;
  before: Buffer;
  args: string[];
}

const servers: PeerSsh[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A demo host of `profile` (with the release's own libvirt) in its own state file (with `extra` files), served by a simulated sshd on 127.0.0.1. */
async function target(
  profile: ProfileId,
  name: string,
  extra: Record<string, { content: string; mode: string } | null> = {},
  ctld?: { running: boolean },
): Promise<Target> {
  const statePath = join(dir, `${name}.json`);
  // as every FreeBSD host has it (hier(7)): the demo seed lists only the directories its own files need
  // (and /rescue, whose statically linked sh the scratch jail gets as its /bin/sh)
  const seed = demoSeedHost() as ReturnType<typeof demoSeedHost> & { dirs?: string[]; files?: Record<string, { content: string; mode?: string }> };
  // extra files, a null one removed
  const files = Object.fromEntries(
    Object.entries({ ...seed.files, '/rescue/sh': { content: '\x7fELF (statically linked crunched binary)\n', mode: '555' }, ...extra }).filter(
      ([, f]) => f !== null,
    ),
  );
  const sim = new SimulatorExecutor({
    statePath,
    seed: { ...seed, profile, libvirtVersion: PROFILES[profile].libvirtVersion, files, dirs: [...(seed.dirs ?? []), '/var/tmp'], ...(ctld ? { ctld } : {}) },
  });
  await sim.run(['sysctl', '-n', 'kern.hostname']); // the state file is made at the first command
  const ssh = await startPeerSsh({
    hosts: [{ nodeId: name, address: '127.0.0.1', statePath }],
    port: await freePort(),
    dir: join(dir, `${name}-ssh`),
    warn: () => undefined,
  });
  servers.push(ssh);
  // the host key the server made and keeps in the host's state (/etc/ssh), as ssh-keygen -l prints it
  const state = JSON.parse(readFileSync(statePath, 'utf8')) as { files: Record<string, { content: string }> };
  const pub = ssh2.utils.parseKey(state.files['/etc/ssh/ssh_host_ed25519_key.pub'].content);
  if (pub instanceof Error) throw pub;
  const fingerprint = `SHA256:${createHash('sha256').update(pub.getPublicSSH()).digest('base64').replace(/=+$/, '')}`;
  const args = ['--ssh', `${ssh.user}@127.0.0.1:${ssh.port}`, '--identity', ssh.keyFile, '--host-key', fingerprint];
  return { statePath, ssh, fingerprint, before: readFileSync(statePath), args };
}

async function cli(args: string[], signal = new AbortController().signal): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await hostCheckCli(args, { out: (s) => (out += s), err: (s) => (err += s), signal });
  return { code, out, err };
}

/**
 * The kernel's jail-id counter (kern_jail.c: a new jail takes lastprid + 1) moves with every jail the kit creates
 * and nothing can set it back, as on a real host; every other byte is as the kit found it.
 */
const withoutJidCounter = (b: Buffer) => b.toString().replace(/^\s*"lastJid":\s*\d+,?\n/m, '');

/** The state file as it was: first as JSON (so a difference is shown), then byte for byte (the jid counter aside). */
function expectUnchanged(t: Target): void {
  const after = readFileSync(t.statePath);
  expect(JSON.parse(withoutJidCounter(after))).toEqual(JSON.parse(withoutJidCounter(t.before)));
  expect(withoutJidCounter(after)).toBe(withoutJidCounter(t.before));
}

const resultsOf = (json: string) => (JSON.parse(json) as { results: ScenarioResult[] }).results;

describe.each(['freebsd-14.3', 'freebsd-15.0'] as const)('host-check over SSH on %s', (profile) => {
  it('passes every scenario and leaves the state file as it found it', async () => {
    const t = await target(profile, `all-${profile}`);
    const { code, out, err } = await cli([...t.args, '--json']);
    const results = resultsOf(out);
    expect({ code, results: results.map((r) => [r.name, r.verdict, r.cleanupErrors]) }).toEqual({
      code: 0,
      // without --iscsi the iscsi scenario is left out
      results: SCENARIOS.filter((s) => !s.optIn).map((s) => [s.name, 'ok', []]),
    });
    // the scenarios really ran: the jobs reported progress and the resilver was followed
    expect(err).toMatch(/scratch-pool: pool\.replace-device: resilvered 100%/);
    expect(err).toMatch(/group: group\.set-members: applying/);
    expect(err).toMatch(/jail: hm-check-\w+ running, jail \d+ mask: 0/);
    expect(err).toMatch(/vm: defined domain 9999 \(hm-check-/);
    const detail = (name: string) => results.find((r) => r.name === name)!.detail;
    // RACCT and the guest agent channel are what the two profiles differ in
    if (profile === 'freebsd-14.3') expect(detail('vm')).toMatch(/QGA skipped: the guest agent channel needs libvirt 12\.4/);
    else expect(detail('vm')).toMatch(/cloud-init seed attached, QGA channel; not started/);
    expectUnchanged(t);
  }, 180_000);
});

describe.each(['freebsd-14.3', 'freebsd-15.0'] as const)('host-check --iscsi over SSH on %s', (profile) => {
  it('adds a scratch target to the demo host’s ctl.conf through the job, sees it served, removes it: the state file as it was', async () => {
    const t = await target(profile, `iscsi-${profile}`);
    const { code, out, err } = await cli([...t.args, '--only', 'iscsi', '--iscsi', '--json']);
    const results = resultsOf(out);
    expect({ code, results: results.map((r) => [r.name, r.verdict, r.cleanupErrors]) }).toEqual({ code: 0, results: [['iscsi', 'ok', []]] });
    expect(results[0].detail).toMatch(
      /^iqn\.2005-10\.org\.freebsd\.ctl:hm-check-\w+ LUN 0 on hm-check-\w+-iscsi\/hm-check-\w+: applied \(iscsi\.apply-config\), served; \/etc\/ctl\.conf restored byte for byte, ctld reloaded, ctld_enable=NO; 2 existing targets kept$/,
    );
    // the job installed and reloaded (ctld -t on both profiles), the kit read the LUN back from ctladm
    expect(err).toMatch(/iscsi: iscsi\.apply-config: applied 100% — service ctld onereload/);
    expect(err).toMatch(
      /iscsi: served: iqn\.2005-10\.org\.freebsd\.ctl:hm-check-\w+ LUN 0 -> \/dev\/zvol\/hm-check-\w+-iscsi\/hm-check-\w+; the host's own 2 targets and 1 LUNs served as before/,
    );
    expectUnchanged(t);
  }, 180_000);
});

describe('host-check --iscsi on a host with a ctl.conf of its own', () => {
  const handWritten = [
    '# written by hand: comments, bare words, quotes, semicolons',
    'portal-group pg0 { discovery-auth-group no-authentication; listen 0.0.0.0:3260 }   # one line',
    '',
    'target iqn.2026-01.net.example.fbsd-01:storage {',
    '\talias "block storage" # kept',
    '\tauth-group no-authentication',
    '\tportal-group pg0',
    '\tlun 0 { path /dev/zvol/tank/iscsi/lun0 }',
    '\tlun 1 { path "/dev/zvol/tank/iscsi/lun1" }',
    '}',
    'target iqn.2026-01.net.example.fbsd-01:other {',
    '\tauth-group no-authentication',
    '\tlun 2 { path /dev/zvol/tank/iscsi/lun2 }',
    '}',
    '',
  ].join('\n');

  it('keeps its targets served throughout and its file byte for byte (mode too); ctld_enable="YES" stays', async () => {
    const conf = { content: handWritten, mode: '644' };
    const rcConf = { content: 'hostname="fbsd-01"\nctld_enable="YES"\n', mode: '644' };
    const t = await target('freebsd-15.0', 'iscsi-own', { '/etc/ctl.conf': conf, '/etc/rc.conf': rcConf });
    const { code, out, err } = await cli([...t.args, '--only', 'iscsi', '--iscsi']);
    expect({ code, out }).toMatchObject({ code: 0, out: expect.stringMatching(/^ok {6}iscsi: .*; 2 existing targets kept$/m) });
    expect(err).toBe('');
    expect(out).toMatch(/iscsi: \/etc\/ctl\.conf: 2 targets, 1 portal groups; ctld running, ctld_enable=YES/);
    // LUNs 0 and 1 of storage and LUN 2 of other, still served while the scratch target was in
    expect(out).toMatch(/iscsi: served: .*; the host's own 2 targets and 3 LUNs served as before/);
    const state = JSON.parse(readFileSync(t.statePath, 'utf8')) as { files: Record<string, unknown> };
    expect([state.files['/etc/ctl.conf'], state.files['/etc/rc.conf']]).toEqual([conf, rcConf]);
    expectUnchanged(t);
  }, 180_000);

  it('is skipped, touching nothing, when ctl.conf holds what the job’s model cannot (an auth-group block)', async () => {
    const withAuth = `auth-group ag0 {\n\tchap user secretsecret12\n}\n${handWritten.replaceAll('auth-group no-authentication', 'auth-group ag0')}`;
    const t = await target('freebsd-14.3', 'iscsi-unfit', { '/etc/ctl.conf': { content: withAuth, mode: '600' } });
    const { code, out } = await cli([...t.args, '--only', 'iscsi', '--iscsi', '--json']);
    expect({ code, results: resultsOf(out) }).toEqual({
      code: 0,
      results: [
        {
          name: 'iscsi',
          verdict: 'skipped',
          detail: 'missing: an /etc/ctl.conf the iscsi.apply-config model holds whole (it has auth-group ag0)',
          cleanupErrors: [],
        },
      ],
    });
    expectUnchanged(t);
  }, 60_000);

  it('on a host with ctld stopped and no ctl.conf: the job starts ctld, the kit stops it and removes the file again', async () => {
    const t = await target('freebsd-14.3', 'iscsi-stopped', { '/etc/ctl.conf': null }, { running: false });
    const { code, out } = await cli([...t.args, '--only', 'iscsi', '--iscsi']);
    expect(code).toBe(0);
    expect(out).toMatch(/iscsi: \/etc\/ctl\.conf: none; ctld not running, ctld_enable=NO/);
    // a portal group of its own on the loopback address, as the host had none
    expect(out).toMatch(/adding target iqn\.2005-10\.org\.freebsd\.ctl:hm-check-\w+ to portal group hm-check-\w+\n/);
    expect(out).toMatch(/iscsi\.apply-config: applied 100% — service ctld onestart/);
    expect(out).toMatch(/^ok {6}iscsi: .*; \/etc\/ctl\.conf removed again, ctld stopped, ctld_enable=NO; 0 existing targets kept$/m);
    expectUnchanged(t);
  }, 180_000);

  it('refuses --only iscsi without --iscsi (exit 2, nothing run)', async () => {
    const { code, err } = await cli(['--ssh', 'root@127.0.0.1:1', '--insecure-accept-any-host-key', '--only', 'iscsi']);
    expect({ code, err }).toEqual({ code: 2, err: 'host-check: --only iscsi: that scenario runs only with --iscsi\n' });
  });
});

describe('doctor over SSH', () => {
  it('reaches a simulated host through the SSH executor (commands run as `env PATH=… argv`)', async () => {
    const t = await target('freebsd-15.0', 'doctor');
    let out = '';
    await doctorCli([...t.args, '--state-dir', join(dir, 'no-state-dir')], {}, (s) => (out += s));
    // every program found on the agent's PATH, and every inventory section read, on the far side of SSH
    expect(out).toMatch(/^ok   program zfs: \/sbin\/zfs$/m);
    expect(out).toMatch(/^ok   program virsh: \/usr\/local\/bin\/virsh$/m);
    expect(out).toMatch(/^ok   inventory pools: 2 read$/m);
    expect(out).not.toMatch(/^fail/m);
    expectUnchanged(t);
  }, 60_000);
});

describe('host-check cleanup', () => {
  it('undoes a scenario that fails half way (a host command failing mid-scenario)', async () => {
    const t = await target('freebsd-14.3', 'fault');
    const ssh = new SshExecutor({ host: '127.0.0.1', port: t.ssh.port, username: t.ssh.user, privateKeyPath: t.ssh.keyFile, hostKeySha256: t.fingerprint });
    // the host answers `zfs snapshot` with a fault, after the pool, its file and the group exist
    const faulty: Executor = {
      kind: 'ssh',
      run: (argv, opts) =>
        argv[0] === 'zfs' && argv[1] === 'snapshot' ? Promise.resolve({ code: 70, stdout: '', stderr: 'simulator: injected fault\n' }) : ssh.run(argv, opts),
      start: (argv, opts) => ssh.start(argv, opts),
    };
    const seen: string[] = [];
    try {
      const results = await runScenarios(
        faulty,
        SCENARIOS.filter((s) => s.name === 'scratch-pool'),
        {
          options: { id: 'f4u17', scratchPool: 'hm-check-f4u17', startVm: false, iscsi: false },
          caps: await probeCapabilities(ssh),
          signal: new AbortController().signal,
          note: (l) => seen.push(l),
        },
      );
      expect(results).toEqual([{ name: 'scratch-pool', verdict: 'fail', detail: 'simulator: injected fault', cleanupErrors: [] }]);
    } finally {
      await ssh.close();
    }
    // it had created the pool before failing, and removed it again
    expect(seen).toContain('scratch-pool: created pool hm-check-f4u17 on /var/tmp/hm-check-f4u17/vdev0');
    expect(seen).toContain('scratch-pool: cleanup: zpool destroy hm-check-f4u17');
    expectUnchanged(t);
  }, 120_000);

  it('undoes the iscsi scenario when the job fails after ctld loaded the scratch target', async () => {
    const t = await target('freebsd-15.0', 'iscsi-fault');
    const ssh = new SshExecutor({ host: '127.0.0.1', port: t.ssh.port, username: t.ssh.user, privateKeyPath: t.ssh.keyFile, hostKeySha256: t.fingerprint });
    // the job's last step, `sysrc ctld_enable=YES`, fails: ctl.conf is installed, ctld serves the scratch target
    const faulty: Executor = {
      kind: 'ssh',
      run: (argv, opts) =>
        argv[0] === 'sysrc' && argv[1] === 'ctld_enable=YES'
          ? Promise.resolve({ code: 70, stdout: '', stderr: 'simulator: injected fault\n' })
          : ssh.run(argv, opts),
      start: (argv, opts) => ssh.start(argv, opts),
    };
    const seen: string[] = [];
    try {
      const results = await runScenarios(
        faulty,
        SCENARIOS.filter((s) => s.name === 'iscsi'),
        {
          options: { id: 'f4u18', scratchPool: 'hm-check-f4u18', startVm: false, iscsi: true },
          caps: await probeCapabilities(ssh),
          signal: new AbortController().signal,
          note: (l) => seen.push(l),
        },
      );
      expect(results).toEqual([{ name: 'iscsi', verdict: 'fail', detail: 'simulator: injected fault', cleanupErrors: [] }]);
    } finally {
      await ssh.close();
    }
    // the job had reloaded ctld with the scratch target before failing; the cleanup put everything back
    expect(seen).toContain('iscsi: iscsi.apply-config: checking 10% — ctl.conf');
    expect(seen).toEqual(
      expect.arrayContaining([
        'iscsi: cleanup: /etc/ctl.conf restored, ctld reloaded',
        'iscsi: cleanup: ctld_enable restored',
        'iscsi: cleanup: zfs destroy hm-check-f4u18-iscsi/hm-check-f4u18',
        'iscsi: cleanup: zpool destroy hm-check-f4u18-iscsi',
      ]),
    );
    expectUnchanged(t);
  }, 120_000);

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    'cleans up after %s to the CLI process and exits %i',
    async (sig, exitCode) => {
      const t = await target('freebsd-15.0', `signal-${sig}`);
      const child = spawn(process.execPath, ['--import', 'tsx', 'agent/check/main.ts', ...t.args, '--only', 'group,scratch-pool'], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let interrupted = false;
      child.stderr.on('data', (c) => (out += c));
      child.stdout.on('data', (c) => {
        out += c;
        // interrupted while the scratch pool exists (its file vdevs and the pool made, nothing undone yet)
        if (!interrupted && /created pool hm-check-/.test(out)) {
          interrupted = true;
          child.kill(sig);
        }
      });
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      expect(interrupted).toBe(true);
      expect(code).toBe(exitCode);
      expect(out).toMatch(/cleanup: zpool destroy hm-check-/);
      expect(out).toMatch(new RegExp(`fail +scratch-pool: interrupted \\(${sig}\\)`));
      expectUnchanged(t);
    },
    120_000,
  );
});
