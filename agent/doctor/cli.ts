import { setting } from '#shared/config/read';
import { parseArgs } from 'node:util';
import { LocalExecutor } from '../executors/local.ts';
import { programPath, SERVICE_PATH } from '../executors/program-path.ts';
import { SshExecutor } from '../executors/ssh.ts';
import type { Executor } from '../executors/executor.ts';
import type { AgentConfig } from '../runtime/config.ts';
import type { ExtraExecutors } from '../runtime/host.ts';
import { formatLine, runDoctor } from './checks.ts';

export const DOCTOR_HELP = `hostmgr-agent doctor — read-only preflight of a host: one line per check, ok / warn / fail with the fix

Usage: node agent.js doctor [options]          (npm run agent -- doctor [options])

  --ssh USER@HOST[:PORT]     check that host over SSH (default: this host)
  --identity FILE            private key for --ssh
  --host-key SHA256:…        the host's key fingerprint (ssh-keygen -l); or --insecure-accept-any-host-key
  --state-dir DIR            the agent's state dir (HM_STATE_DIR, /var/db/hostmgr-agent), on this machine
  --path DIRS                the PATH the agent's programs are looked up in (HM_AGENT_PATH; default: the rc.d
                             service's /sbin:/bin:/usr/sbin:/usr/bin plus /usr/local/sbin:/usr/local/bin)

Programs are looked up as the agent service finds them, not through your shell's PATH. Exit 1 when a check fails.`;

/** `user@host[:port]` */
function sshTarget(s: string): { user: string; host: string; port: number } | null {
  const m = /^(?:([^@\s]+)@)?([^:@\s]+)(?::(\d{1,5}))?$/.exec(s);
  return m ? { user: m[1] ?? 'root', host: m[2], port: m[3] ? Number(m[3]) : 22 } : null;
}

/** Runs the doctor; returns the exit code (0 nothing failed, 1 a check failed, 2 bad options). */
export async function doctorCli(argv: string[], extra: ExtraExecutors = {}, out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
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
        'state-dir': { type: 'string' },
        path: { type: 'string' },
        'simulator-state': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (e) {
    process.stderr.write(`hostmgr-agent doctor: ${(e as Error).message}; see doctor --help\n`);
    return 2;
  }
  if (values.help) {
    out(`${DOCTOR_HELP}\n`);
    return 0;
  }
  const path = programPath(values.path ?? setting('HM_AGENT_PATH'), SERVICE_PATH);
  const stateDir = values['state-dir'] ?? setting('HM_STATE_DIR');
  let exec: Executor;
  if (values['simulator-state']) {
    if (!extra.simulator) {
      process.stderr.write('hostmgr-agent doctor: --simulator-state: this agent build has no host simulator\n');
      return 2;
    }
    exec = extra.simulator({ simulatorState: values['simulator-state'], programPath: path } as AgentConfig);
  } else if (values.ssh) {
    const t = sshTarget(values.ssh);
    if (!t) {
      process.stderr.write(`hostmgr-agent doctor: --ssh: expected USER@HOST[:PORT], got "${values.ssh}"\n`);
      return 2;
    }
    const hostKeys = (values['host-key'] ?? '').split(/[\s,]+/).filter(Boolean);
    if (!hostKeys.length && !values['insecure-accept-any-host-key']) {
      process.stderr.write('hostmgr-agent doctor: --ssh needs --host-key SHA256:… (or --insecure-accept-any-host-key)\n');
      return 2;
    }
    // the remote commands run under the service's PATH, not the login's
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
  try {
    const lines = await runDoctor(exec, { stateDir, path });
    for (const l of lines) out(`${formatLine(l)}\n`);
    const failed = lines.filter((l) => l.verdict === 'fail').length;
    const warned = lines.filter((l) => l.verdict === 'warn').length;
    out(`${failed} failed, ${warned} warnings, ${lines.length - failed - warned} ok\n`);
    return failed ? 1 : 0;
  } catch (e) {
    process.stderr.write(`hostmgr-agent doctor: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await exec.close?.();
  }
}
