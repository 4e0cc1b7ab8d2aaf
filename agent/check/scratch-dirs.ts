import { runChecked, type Executor } from '../executors/executor.ts';
import type { ScenarioContext } from './runner.ts';

/** ls(1) of a file or directory exits 0 when it exists */
const exists = async (exec: Executor, path: string) => (await exec.run(['ls', path])).code === 0;

const parentOf = (d: string) => d.slice(0, d.lastIndexOf('/')) || '/';

/**
 * `mkdir -p dir`, with the removal of what it made registered first. Only directories this call created are
 * removed, and only as far as the kit owns them:
 * - at or below `owned` (a path the kit named: hm-check-<id>…, a RID or ctid it picked as free), the whole tree
 *   (`rm -rf`) — nothing but the kit writes there;
 * - above it — a product directory such as /etc/jail.conf.d or /usr/local/etc/hostmgr that the host lacked — only
 *   when empty (`rmdir`, deepest first): the real agent may have written its own files there meanwhile, and those
 *   stay (the cleanup says which directory it left).
 * A directory that existed is never removed.
 */
export async function makeDirsUndone(ctx: ScenarioContext, dir: string, owned: string | null = null): Promise<void> {
  const made: string[] = [];
  for (let d = dir; d !== '/' && d !== ''; d = parentOf(d)) {
    if (await exists(ctx.exec, d)) break;
    made.push(d);
  }
  if (!made.length) return;
  const isOwned = (d: string) => owned !== null && (d === owned || d.startsWith(`${owned}/`));
  // made[] is deepest first; the topmost owned one takes its tree with it
  const tree = made.filter(isOwned).at(-1);
  const shared = made.filter((d) => !isOwned(d));
  ctx.cleanup(`remove ${made.at(-1)}${tree && shared.length ? ` (${tree} and, when empty, ${shared.join(', ')})` : ''}`, async (exec) => {
    if (tree) await runChecked(exec, ['rm', '-rf', tree]);
    for (const d of shared) {
      if (!(await exists(exec, d))) continue;
      const r = await exec.run(['rmdir', d]);
      if (r.code !== 0) {
        // not empty: someone else's files are in it now; they and the directory stay
        ctx.note(`left ${d}: ${r.stderr.trim() || `rmdir exited ${r.code}`}`);
        break;
      }
    }
  });
  await runChecked(ctx.exec, ['mkdir', '-p', dir]);
}

/** A file the kit writes: removed at cleanup (registered before it is written). */
export function removedAtCleanup(ctx: ScenarioContext, path: string): void {
  ctx.cleanup(`rm -f ${path}`, async (exec) => void (await runChecked(exec, ['rm', '-f', path])));
}
