import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import { writeText } from './host-files.ts';
import { CTL_CONF } from './ctl-conf.ts';

/**
 * Installing a ctl.conf on a FreeBSD host: written beside the live file (mode 0600), checked with `ctld -t -f`,
 * renamed over `/etc/ctl.conf` (atomic within /etc), then `service ctld onereload` — or `onestart` when ctld is
 * not running. A file `ctld -t` rejects is removed and the live one stays; ctld's own message is the error.
 */
export async function installCtlConf(exec: Executor, content: string, tag: string): Promise<{ action: 'onereload' | 'onestart' }> {
  const tmp = `/etc/.ctl.conf.hostmgr-${tag}`;
  await writeText(exec, tmp, content, '600');
  const check = await exec.run(['ctld', '-t', '-f', tmp]);
  if (check.code !== 0) {
    await exec.run(['rm', '-f', tmp]);
    throw new CommandError(['ctld', '-t', '-f', tmp], check);
  }
  await runChecked(exec, ['mv', tmp, CTL_CONF]);
  const running = (await exec.run(['service', 'ctld', 'onestatus'])).code === 0;
  const action = running ? 'onereload' : 'onestart';
  await runChecked(exec, ['service', 'ctld', action]);
  return { action };
}
