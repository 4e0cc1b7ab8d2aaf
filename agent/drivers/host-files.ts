import { CommandError, runChecked, type Executor } from '../executors/executor.ts';

/**
 * File access on a host through the executor (jails, VMs, the agent's journals), argv only: content travels
 * on stdin (`tee`), never through a shell. The simulator answers the same commands from its state file.
 */
const isMissing = (err: unknown) => err instanceof CommandError && /No such file or directory/i.test(err.message);

export async function readOrNull(exec: Executor, path: string): Promise<string | null> {
  try {
    return await runChecked(exec, ['cat', path]);
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/**
 * `tee path` with the content on stdin. tee also copies its input to stdout: that copy (a private key, a VNC
 * password, cloud-init user data) is dropped here, so a failure's error is tee's stderr or its exit code,
 * never the content.
 */
export async function teeFile(exec: Executor, path: string, content: string): Promise<void> {
  const res = await exec.run(['tee', path], { stdin: content });
  if (res.code !== 0) throw new CommandError(['tee', path], { ...res, stdout: '' });
}

/** Writes the file (creating its directory); `mode` e.g. '755' for scripts. */
export async function writeText(exec: Executor, path: string, content: string, mode?: string): Promise<void> {
  await runChecked(exec, ['mkdir', '-p', path.slice(0, path.lastIndexOf('/')) || '/']);
  await teeFile(exec, path, content);
  if (mode) await runChecked(exec, ['chmod', mode, path]);
}

/** Several files in few commands (one mkdir, one tee each, one chmod for the scripts): remote hosts are slow to reach. */
export async function writeFiles(exec: Executor, files: Record<string, string>): Promise<void> {
  const paths = Object.keys(files);
  if (!paths.length) return;
  const dirs = [...new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/')) || '/'))];
  await runChecked(exec, ['mkdir', '-p', ...dirs]);
  for (const p of paths) await teeFile(exec, p, files[p]);
  const scripts = paths.filter((p) => p.endsWith('.sh'));
  if (scripts.length) await runChecked(exec, ['chmod', '755', ...scripts]);
}

export async function removeFiles(exec: Executor, paths: string[]): Promise<void> {
  if (paths.length) await runChecked(exec, ['rm', '-f', ...paths]);
}

export async function makeDir(exec: Executor, path: string): Promise<void> {
  await runChecked(exec, ['mkdir', '-p', path]);
}

/** `rm -rf`: directories with their contents, and files. */
export async function removeTrees(exec: Executor, paths: string[]): Promise<void> {
  if (paths.length) await runChecked(exec, ['rm', '-rf', ...paths]);
}

/** Names in a directory; [] when it does not exist. */
export async function listDir(exec: Executor, dir: string): Promise<string[]> {
  try {
    return (await runChecked(exec, ['ls', '-1', dir])).split('\n').filter(Boolean);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}
