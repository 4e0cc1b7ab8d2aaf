import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abortable } from '#agent/executors/abortable';
import { LocalExecutor } from '#agent/executors/local';

/**
 * A cancelled task's command really stops: the local executor kills the command's whole process group (what
 * it started too), a started stream is killed, and commands run after the cancel (the undo step) run normally.
 */
const dir = mkdtempSync(join(tmpdir(), 'hm-cancel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether a process is still alive (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
}

async function waitFor(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('run(): the command and the process it started are killed; a later command runs', async () => {
  const cancel = new AbortController();
  const exec = abortable(new LocalExecutor(), cancel.signal);
  const pidFile = join(dir, 'child.pid');
  const running = exec.run(['sh', '-c', `sleep 30 & echo $! > ${pidFile}; wait`]);
  await waitFor('the child pid', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
  const child = Number(readFileSync(pidFile, 'utf8'));
  expect(alive(child)).toBe(true);
  cancel.abort();
  const res = await running;
  expect(res.code).toBe(137);
  expect(res.stderr).toContain('stopped: the task was cancelled');
  await waitFor('the grandchild to be gone', () => !alive(child));
  // the undo step: commands after the cancel are not stopped
  expect(await exec.run(['sh', '-c', 'echo undone'])).toEqual({ code: 0, stdout: 'undone\n', stderr: '' });
});

test('start(): a streamed command is killed on cancel', async () => {
  const cancel = new AbortController();
  const exec = abortable(new LocalExecutor(), cancel.signal);
  const cmd = exec.start!(['sleep', '30']);
  setTimeout(() => cancel.abort(), 100);
  expect((await cmd.done).code).toBe(137);
});
