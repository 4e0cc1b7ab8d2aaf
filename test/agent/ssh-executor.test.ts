// @tier e2e
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPools, poolStatus, replaceDevice, resilverProgress } from '#agent/drivers/zfs/pools';
import { setSysctl } from '#agent/drivers/sysctl';
import { CommandError, runChecked } from '#agent/executors/executor';
import { createExecutor } from '#agent/executors/index';
import { LocalExecutor } from '#agent/executors/local';
import { runPiped } from '#agent/executors/pipe';
import { SshExecutor } from '#agent/executors/ssh';
import { startSshd, type Sshd } from './sshd-server.ts';

/** The SSH executor against a real OpenSSH server on 127.0.0.1 (and the simulator CLI behind it). */

const ROOT = join(__dirname, '../..');
let sshd: Sshd;
let ssh: SshExecutor;
const local = new LocalExecutor();
const dir = mkdtempSync(join(tmpdir(), 'hm-ssh-test-'));

beforeAll(async () => {
  sshd = await startSshd();
  ssh = new SshExecutor({ host: '127.0.0.1', port: sshd.port, username: sshd.username, privateKey: sshd.privateKey, hostKeySha256: sshd.hostKeySha256 });
}, 30_000);

afterAll(async () => {
  await ssh?.close();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('ssh executor', () => {
  it('delivers every argument exactly, whatever the shell would make of it', async () => {
    const words = ['a b', "it's", '$HOME', '`id`', '"q"', '', 'x;y|z&', '*', 'tab\there', 'new\nline', '\\', '-n', '%1', 'A=B', '~'];
    const res = await ssh.run(['printf', '[%s]\\n', ...words]);
    expect(res).toEqual({ code: 0, stdout: words.map((w) => `[${w}]\n`).join(''), stderr: '' });
    // and the same through the local executor: one argv, two transports, one result
    expect(await local.run(['printf', '[%s]\\n', ...words])).toEqual(res);
  });

  it('returns exit codes and stderr; a missing program is 127', async () => {
    expect(await ssh.run(['sh', '-c', 'echo out; echo err >&2; exit 3'])).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n' });
    const missing = await ssh.run(['no-such-program-hm', '--x']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toMatch(/no-such-program-hm.*not found/);
    await expect(runChecked(ssh, ['sh', '-c', 'echo "cannot open \'tank\': no such pool" >&2; exit 1'])).rejects.toThrow(
      new CommandError([], { code: 1, stdout: '', stderr: "cannot open 'tank': no such pool\n" }).message,
    );
  });

  it('passes stdin and keeps output byte for byte (leading whitespace, no trimming)', async () => {
    expect(await ssh.run(['wc', '-c'], { stdin: 'hello world' })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\s*11\n$/) });
    const text = '\t  pool: x\n\n';
    expect((await ssh.run(['cat'], { stdin: text })).stdout).toBe(text);
  });

  it('times out a command (124) and keeps working afterwards', async () => {
    // 124 and the message say the executor's timer ended it, not sleep's own exit
    const res = await ssh.run(['sleep', '5'], { timeoutMs: 300 });
    expect(res.code).toBe(124);
    expect(res.stderr).toMatch(/timed out after 300 ms/);
    expect((await ssh.run(['echo', 'still here'])).stdout).toBe('still here\n');
  });

  it('runs many commands at once over one connection', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ssh.run(['sh', '-c', 'echo $0', String(i)])));
    expect(results.map((r) => r.stdout.trim())).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    // 20 sessions on one connection: on a loaded machine sshd takes its time, the bound is only against a hang
  }, 120_000);

  it('refuses a server whose host key is not the expected one', async () => {
    const wrong = new SshExecutor({
      host: '127.0.0.1',
      port: sshd.port,
      username: sshd.username,
      privateKey: sshd.privateKey,
      hostKeySha256: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    await expect(wrong.run(['true'])).rejects.toThrow(/Host denied/);
    await wrong.close();
  });

  it('is what createExecutor builds for kind ssh', async () => {
    const keyFile = join(dir, 'id');
    writeFileSync(keyFile, sshd.privateKey, { mode: 0o600 });
    const ex = createExecutor({
      kind: 'ssh',
      ssh: { host: '127.0.0.1', port: sshd.port, username: sshd.username, privateKeyPath: keyFile, hostKeySha256: sshd.hostKeySha256 },
    });
    expect(ex.kind).toBe('ssh');
    expect((await ex.run(['echo', 'ok'])).stdout).toBe('ok\n');
    await ex.close?.();
  });
});

describe('piping between hosts (zfs send | ssh target zfs recv)', () => {
  it('streams a local command into a remote one, bytes intact', async () => {
    const file = join(dir, 'stream.bin');
    const data = randomBytes(3 * 1024 * 1024 + 17);
    writeFileSync(file, data);
    let seen = 0;
    const res = await runPiped(local, ['cat', file], ssh, ['sha256sum'], { onBytes: (n) => (seen = n) });
    expect(res.source.code).toBe(0);
    expect(res.target.code).toBe(0);
    expect(res.target.stdout.split(' ')[0]).toBe(createHash('sha256').update(data).digest('hex'));
    expect(res.bytes).toBe(data.length);
    expect(seen).toBe(data.length);
  });

  it('streams a remote command into a local one', async () => {
    const res = await runPiped(ssh, ['sh', '-c', 'head -c 100000 /dev/zero'], local, ['wc', '-c']);
    expect(res.target.stdout.trim()).toBe('100000');
  });

  it('stops the sender when the receiver fails', async () => {
    // `yes` never ends by itself: that runPiped returns at all shows the sender was stopped
    const res = await runPiped(local, ['yes'], ssh, ['sh', '-c', 'head -c 10 >/dev/null; echo "cannot receive: invalid stream" >&2; exit 4']);
    expect(res.target).toMatchObject({ code: 4, stderr: 'cannot receive: invalid stream\n' });
    expect(res.source.code).not.toBe(0);
  });
});

describe('a simulated host behind sshd (the simulator CLI as the remote command)', () => {
  it('answers the drivers over ssh like the in-process simulator', async () => {
    const state = join(dir, 'sim.json');
    const remote = new SshExecutor({
      host: '127.0.0.1',
      port: sshd.port,
      username: sshd.username,
      privateKey: sshd.privateKey,
      hostKeySha256: sshd.hostKeySha256,
      // the remote "host": every argv runs through the simulator CLI of this checkout
      prefix: [
        'env',
        '-C',
        ROOT,
        `HM_SIM_STATE=${state}`,
        `HM_SIM_SEED=${join(ROOT, 'test/unit/simulator/test-host.json')}`,
        'HM_SIM_RESILVER_MS=1500',
        process.execPath,
        '--import',
        'tsx',
        'simulator/cli.ts',
      ],
    });
    try {
      const pools = await listPools(remote);
      // zpool list orders pools by name (zpool_main.c's pool list is sorted), as the real guest showed
      expect(pools.map((p) => [p.name, p.guid])).toEqual([
        ['tank', '11883512960153316402'],
        ['zroot', '5871299349428123507'],
      ]);
      await replaceDevice(remote, 'tank', 'da2', 'da4');
      await expect(replaceDevice(remote, 'tank', 'da9', 'da3')).rejects.toThrow('cannot replace da9 with da3: no such device in pool');
      await new Promise((r) => setTimeout(r, 1600));
      const p = resilverProgress(await poolStatus(remote, 'tank'));
      expect(p).toMatchObject({ done: true, percent: 100, replacing: false });
      expect(await setSysctl(remote, 'kern.maxfiles', '123456')).toEqual({ name: 'kern.maxfiles', old: '1037802', new: '123456' });
    } finally {
      await remote.close();
    }
  }, 60_000);
});
