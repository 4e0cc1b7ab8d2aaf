import { CTLD_CHECK_FLAG_SINCE, ctldFlagsUnmanaged } from '#shared/agent-api/capability-rules';
import type { IscsiConfig } from '#shared/agent-api/task-kinds';
import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import { ctldRejection } from './ctl-conf-check.ts';
import { servedLuns } from './ctladm.ts';
import { CTL_CONF } from './ctl-conf.ts';
import { mergeCtlConf } from './ctl-conf-merge.ts';
import { readOrNull, writeText } from './host-files.ts';
import { getSysctls } from './sysctl.ts';

/**
 * Installing a ctl.conf on a FreeBSD host: the node's configuration merged into the live file (./ctl-conf-merge.ts:
 * what the host defined itself is kept byte for byte, or the task fails naming the statement), checked, written beside the live file (mode 0600), renamed over
 * `/etc/ctl.conf` (atomic within /etc), then `service ctld onereload` — or `onestart` when ctld is not running —
 * then confirmed with ctladm, and `ctld_enable=YES` kept in rc.conf so that ctld serves the LUNs after a reboot.
 *
 * The check is `ctld -t -f <file>` where ctld has `-t` (getopt "dtuf:R" and the two-line usage in ctld.c since
 * the ctld.8 of 2020-03-31, i.e. FreeBSD 13.0 on; see CTLD_CHECK_FLAG_SINCE); on an older ctld — or one that
 * answers `-t` with its usage — the agent's own reading of ctld's grammar (./ctl-conf-check.ts). A refused file
 * is removed and the live one stays; ctld's own message is the error.
 *
 * Why ctladm: a reload is a SIGHUP, and ctld only logs a configuration it refuses ("configuration error,
 * continuing with old configuration") while `service` exits 0; the 15.x ctld daemonizes before applying, so
 * `onestart` exits 0 even when creating a LUN fails. What the kernel serves is the only proof; when it falls
 * short, the previous file is put back (and reloaded) and the task fails naming the LUNs not served.
 */
export interface InstallOptions {
  /** how often and how long apart to look for the result (a reload is applied after `service` returns) */
  verifyAttempts?: number;
  verifyDelayMs?: number;
}

export interface InstallResult {
  action: 'onereload' | 'onestart';
  check: 'ctld -t' | 'hostmgr';
}

const usageAnswer = (stderr: string) => /^usage: ctld|illegal option -- t/m.test(stderr);

async function hasCheckFlag(exec: Executor): Promise<boolean> {
  const osreldate = Number.parseInt((await getSysctls(exec, ['kern.osreldate'])).get('kern.osreldate') ?? '', 10);
  return Number.isFinite(osreldate) && osreldate >= CTLD_CHECK_FLAG_SINCE;
}

/** `ctld -t` where it exists, else the agent's checker; throws ctld's message. */
async function checkOnHost(exec: Executor, tmp: string, text: string): Promise<InstallResult['check']> {
  if (await hasCheckFlag(exec)) {
    const res = await exec.run(['ctld', '-t', '-f', tmp]);
    if (res.code === 0) return 'ctld -t';
    if (!usageAnswer(res.stderr)) throw new CommandError(['ctld', '-t', '-f', tmp], res);
  }
  const refused = ctldRejection(text);
  if (refused) throw new Error(refused.trim());
  return 'hostmgr';
}

/** The LUNs the configuration asks for that the kernel does not serve (empty when all are served). */
async function missingLuns(exec: Executor, config: IscsiConfig): Promise<string[]> {
  const served = await servedLuns(exec);
  const missing: string[] = [];
  for (const t of config.targets) {
    const luns = served.get(t.name.toLowerCase());
    for (const l of t.luns) {
      const path = `/dev/zvol/${l.zvol}`;
      if (luns?.get(l.number) !== path) missing.push(`target ${t.name} LUN ${l.number} (${path})`);
    }
  }
  return missing;
}

/**
 * Puts the previous file back after ctld did not apply the new one, so that what /etc/ctl.conf says is what ctld
 * serves — and a reboot (rc starts ctld with this file) does not fail on the same LUN and serve nothing.
 */
async function restore(exec: Executor, previous: string | null, tag: string, running: boolean): Promise<void> {
  if (previous === null) {
    await exec.run(['rm', '-f', CTL_CONF]);
    return;
  }
  const tmp = `/etc/.ctl.conf.hostmgr-${tag}`;
  await writeText(exec, tmp, previous, '600');
  await runChecked(exec, ['mv', tmp, CTL_CONF]);
  if (running) await exec.run(['service', 'ctld', 'onereload']);
}

/**
 * rc.conf's ctld_flags: `sysrc -n ctld_flags` prints the value; a variable no rc.conf file (nor /etc/defaults/rc.conf)
 * sets is `sysrc: unknown variable 'ctld_flags'`, exit 1 — no flags. null when sysrc gives no answer at all.
 */
export async function readCtldFlags(exec: Executor): Promise<string | null> {
  const res = await exec.run(['sysrc', '-n', 'ctld_flags']).catch(() => null);
  if (res?.code === 0) return res.stdout.trim();
  return res && /unknown variable/.test(res.stderr) ? '' : null;
}

export async function installCtlConf(exec: Executor, config: IscsiConfig, tag: string, opts: InstallOptions = {}): Promise<InstallResult> {
  // ctld started with -u (UCL) or -f <another file> does not read the ctl.conf(5) text hostmgr manages
  const unmanaged = ctldFlagsUnmanaged((await readCtldFlags(exec)) ?? '');
  if (unmanaged) throw new Error(unmanaged);
  const previous = await readOrNull(exec, CTL_CONF);
  const text = mergeCtlConf(previous, config);
  const tmp = `/etc/.ctl.conf.hostmgr-${tag}`;
  await writeText(exec, tmp, text, '600');
  let check: InstallResult['check'];
  try {
    check = await checkOnHost(exec, tmp, text);
  } catch (err) {
    await exec.run(['rm', '-f', tmp]);
    throw err;
  }
  await runChecked(exec, ['mv', tmp, CTL_CONF]);
  const running = (await exec.run(['service', 'ctld', 'onestatus'])).code === 0;
  const action = running ? 'onereload' : 'onestart';
  try {
    await runChecked(exec, ['service', 'ctld', action]);
  } catch (err) {
    await restore(exec, previous, tag, running);
    throw err;
  }

  const attempts = opts.verifyAttempts ?? 5;
  let missing = await missingLuns(exec, config);
  for (let n = 1; missing.length && n < attempts; n++) {
    await new Promise((r) => setTimeout(r, opts.verifyDelayMs ?? 1000));
    missing = await missingLuns(exec, config);
  }
  if (missing.length) {
    const stillRunning = (await exec.run(['service', 'ctld', 'onestatus'])).code === 0;
    await restore(exec, previous, tag, stillRunning);
    throw new Error(
      `ctld did not apply ${CTL_CONF} (service ctld ${action} returned 0): not served: ${missing.join(', ')}` +
        `${stillRunning ? '' : '; ctld is not running'}. ctld logs the reason to syslog (/var/log/messages); the previous ${CTL_CONF} is back in place.`,
    );
  }
  // rc.conf: ctld starts at boot with this file (sysrc(8) rewrites the assignment in place, or appends it)
  await runChecked(exec, ['sysrc', 'ctld_enable=YES']);
  return { action, check };
}
