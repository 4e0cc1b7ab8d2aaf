import { setting } from '#shared/config/read';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { probeCapabilities } from '../drivers/host-capabilities.ts';
import type { Executor } from '../executors/executor.ts';
import { LocalExecutor } from '../executors/local.ts';
import { programPath, SERVICE_PATH } from '../executors/program-path.ts';
import { SshExecutor } from '../executors/ssh.ts';
import { formatResult, runScenarios, type CheckOptions, type ScenarioResult } from './runner.ts';
import { SCENARIOS } from './scenarios/index.ts';

export const HOST_CHECK_HELP = `host-check — the agent's real drivers, collectors and jobs run against a FreeBSD host, on scratch resources only

Usage: npm run host-check -- --ssh USER@HOST[:PORT] [options]
       node dist/agent/host-check.js --ssh USER@HOST[:PORT] [options]
       node dist/agent/host-check.js --local [options]          (on the host itself, as root)

  --ssh USER@HOST[:PORT]     the host, over SSH (the agent's SSH executor; commands run as that user: root)
  --identity FILE            private key for --ssh (default: none; node-ssh then offers no key)
  --host-key SHA256:…        the host's key fingerprint (ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub);
                             or --insecure-accept-any-host-key
  --local                    this host, through the agent's local executor
  --scratch-pool NAME        the scratch pool's name (must start with hm-check-; default hm-check-<run id>)
  --only a,b                 run only these scenarios
  --start-vm                 the vm scenario also starts its domain (bhyve runs it with no disk) and destroys it
  --iscsi                    also the iscsi scenario: a scratch target (zvol LUN on its own scratch pool) added
                             to /etc/ctl.conf through the iscsi.apply-config job, read back with ctladm, removed;
                             ctl.conf restored byte for byte, ctld reloaded, ctld_enable set back. Skipped without
                             ctld, or when ctl.conf holds what the job's model cannot (it would be lost)
  --path DIRS                PATH the host's programs are looked up in (default: the agent service's,
                             /sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin)
  --json                     print the results as JSON (progress lines go to stderr)
  --help                     this text

Scenarios (each prints ok, fail or skipped with what the host lacks):
${SCENARIOS.map((s) => `  ${s.name.padEnd(13)} ${s.title}`).join('\n')}

Everything it creates is named hm-check-<run id> and removed at the end of its scenario, also after a failure
or Ctrl-C (a second Ctrl-C does not stop the cleanup). It never touches a pool, dataset, group or file it did not
create — except, with --iscsi, /etc/ctl.conf and rc.conf's ctld_enable, which it puts back as they were. Exit 0 when no scenario failed, 1 when one did, 2 on bad options, 130 after Ctrl-C.`;

/** `user@host[:port]` */
function sshTarget(s: string): { user: string; host: string; port: number } | null {
  const m = /^(?:([^@\s]+)@)?([^:@\s]+)(?::(\d{1,5}))?$/.exec(s);
  return m ? { user: m[1] ?? 'root', host: m[2], port: m[3] ? Number(m[3]) : 22 } : null;
}

export interface HostCheckIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** aborted on Ctrl-C (the process entry wires SIGINT to it) */
  signal: AbortSignal;
}

/** Runs the kit; resolves with the exit code. */
export async function hostCheckCli(argv: string[], io: HostCheckIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        ssh: { type: 'string' },
        identity: { type: 'string' },
        'host-key': { type: 'string' },
        'insecure-accept-any-host-key': { type: 'boolean' },
        local: { type: 'boolean' },
        'scratch-pool': { type: 'string' },
        only: { type: 'string' },
        path: { type: 'string' },
        json: { type: 'boolean' },
        'start-vm': { type: 'boolean' },
        iscsi: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (e) {
    io.err(`host-check: ${(e as Error).message}; see --help\n`);
    return 2;
  }
  if (values.help) {
    io.out(`${HOST_CHECK_HELP}\n`);
    return 0;
  }
  const bad = (m: string) => (io.err(`host-check: ${m}\n`), 2);
  if (Boolean(values.ssh) === Boolean(values.local)) return bad('give --ssh USER@HOST[:PORT] or --local (one of them)');
  const id = randomBytes(3).toString('hex');
  const scratchPool = values['scratch-pool'] ?? `hm-check-${id}`;
  if (!/^hm-check-[A-Za-z0-9_.:-]+$/.test(scratchPool))
    return bad(`--scratch-pool: "${scratchPool}" must start with hm-check- (the kit only destroys what it named)`);
  const only = values.only?.split(',').filter(Boolean);
  const unknown = only?.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown?.length) return bad(`--only: no scenario ${unknown.join(', ')} (there are ${SCENARIOS.map((s) => s.name).join(', ')})`);
  const optedOut = SCENARIOS.filter((s) => s.optIn && !values[s.optIn] && only?.includes(s.name));
  if (optedOut.length) return bad(`--only ${optedOut[0].name}: that scenario runs only with --${optedOut[0].optIn}`);
  const scenarios = SCENARIOS.filter((s) => (!only || only.includes(s.name)) && (!s.optIn || values[s.optIn]));
  const path = programPath(values.path ?? setting('HM_AGENT_PATH'), SERVICE_PATH);

  let exec: Executor;
  if (values.ssh) {
    const t = sshTarget(values.ssh);
    if (!t) return bad(`--ssh: expected USER@HOST[:PORT], got "${values.ssh}"`);
    const hostKeys = (values['host-key'] ?? '').split(/[\s,]+/).filter(Boolean);
    if (!hostKeys.length && !values['insecure-accept-any-host-key']) return bad('--ssh needs --host-key SHA256:… (or --insecure-accept-any-host-key)');
    // the remote commands run under the agent service's PATH, not the login's
    exec = new SshExecutor({
      host: t.host,
      port: t.port,
      username: t.user,
      privateKeyPath: values.identity,
      hostKeySha256: hostKeys,
      insecureAcceptAnyHostKey: values['insecure-accept-any-host-key'],
      prefix: ['env', `PATH=${path}`],
    });
  } else {
    exec = new LocalExecutor({ env: { ...process.env, PATH: SERVICE_PATH }, path });
  }

  // the replacement job reads zpool status every HM_RESILVER_POLL_MS (5 s by default, for real disks' hours-long
  // resilvers); a scratch pool resilvers in moments, so the kit sets 1 s unless the operator chose a value (a write
  // of the job's setting, which the job reads through the settings table)
  if (!('HM_RESILVER_POLL_MS' in process.env)) Object.assign(process.env, { HM_RESILVER_POLL_MS: '1000' });
  const options: CheckOptions = { id, scratchPool, startVm: Boolean(values['start-vm']), iscsi: Boolean(values.iscsi) };
  const progress = values.json ? io.err : io.out;
  try {
    const caps = await probeCapabilities(exec);
    // on a host that is not FreeBSD (a Linux host with OpenZFS) only the scenarios that need nothing but ZFS run;
    // kern.osreldate is FreeBSD's own sysctl
    const system = caps.osreldate > 0 ? 'FreeBSD' : (await exec.run(['uname', '-s']).catch(() => null))?.stdout.trim() || 'a system without kern.osreldate';
    const skip =
      system === 'FreeBSD'
        ? undefined
        : (s: { portable?: boolean }) => (s.portable ? undefined : `not run: this host runs ${system}, not FreeBSD (the scenario needs FreeBSD's own tools)`);
    if (skip) progress(`host-check: this host runs ${system}, not FreeBSD: only the ZFS scenarios run\n`);
    progress(
      `host-check ${id} on ${values.ssh ?? 'this host'}: ${caps.osrelease || '?'} (${caps.osreldate}), ${caps.zfsVersion ?? 'no zfs'}, libvirt ${caps.libvirtVersion ?? 'absent'}, racct ${caps.racct ? 'on' : 'off'}\n`,
    );
    const results: ScenarioResult[] = await runScenarios(exec, scenarios, {
      options,
      caps,
      signal: io.signal,
      note: (l) => progress(`  · ${l}\n`),
      skip,
      onResult: (r) => {
        if (!values.json) io.out(`${formatResult(r)}\n`);
      },
    });
    const failed = results.filter((r) => r.verdict === 'fail').length;
    const skipped = results.filter((r) => r.verdict === 'skipped').length;
    if (values.json) io.out(`${JSON.stringify({ id, target: values.ssh ?? 'local', capabilities: caps, interrupted: io.signal.aborted, results }, null, 2)}\n`);
    else io.out(`${failed} failed, ${skipped} skipped, ${results.length - failed - skipped} ok\n`);
    if (io.signal.aborted) return 130;
    return failed ? 1 : 0;
  } catch (e) {
    io.err(`host-check: ${(e as Error).message}\n`);
    return io.signal.aborted ? 130 : 1;
  } finally {
    await exec.close?.();
  }
}
