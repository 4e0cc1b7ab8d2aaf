import { runChecked, type Executor } from '../executors/executor.ts';
import type { ScenarioContext } from './runner.ts';

/** ls(1) of a file or directory exits 0 when it exists */
const exists = async (exec: Executor, path: string) => (await exec.run(['ls', path])).code === 0;

/**
 * `mkdir -p dir`, with the removal of what it made registered first: the topmost directory that did not
 * exist goes at cleanup (so a product directory such as /etc/jail.conf.d the host lacked does not stay behind).
 * A directory that existed is never removed.
 */
export async function makeDirsUndone(ctx: ScenarioContext, dir: string): Promise<void> {
  let top: string | null = null;
  for (let d = dir; d !== '/' && d !== ''; d = d.slice(0, d.lastIndexOf('/')) || '/') {
    if (await exists(ctx.exec, d)) break;
    top = d;
  }
  if (top === null) return;
  const made = top;
  ctx.cleanup(`rm -rf ${made}`, async (exec) => void (await runChecked(exec, ['rm', '-rf', made])));
  await runChecked(ctx.exec, ['mkdir', '-p', dir]);
}

/** A file the kit writes: removed at cleanup (registered before it is written). */
export function removedAtCleanup(ctx: ScenarioContext, path: string): void {
  ctx.cleanup(`rm -f ${path}`, async (exec) => void (await runChecked(exec, ['rm', '-f', path])));
}
