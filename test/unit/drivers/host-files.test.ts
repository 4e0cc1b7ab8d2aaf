import { installPrivateFile } from '#agent/drivers/certificate-files';
import { writeFiles, writeText } from '#agent/drivers/host-files';
import type { Executor, RunOptions, RunResult } from '#agent/executors/executor';

/**
 * tee copies what it writes to stdout. A failing tee with nothing on stderr (a full disk on some systems, a
 * killed process) must not turn that copy — a private key, a VNC password — into the task's error.
 */
const SECRET = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';

class TeeFails implements Executor {
  readonly kind = 'local' as const;
  async run(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
    // the empty file installPrivateFile makes first is written; the content is not
    if (argv[0] === 'tee' && opts.stdin) return { code: 1, stdout: String(opts.stdin), stderr: '' };
    return { code: 0, stdout: '', stderr: '' };
  }
  start(): never {
    throw new Error('not used');
  }
}

test.each([
  ['installPrivateFile', (e: Executor) => installPrivateFile(e, '/usr/local/etc/ssl/hostmgr/api.key', SECRET)],
  ['writeText', (e: Executor) => writeText(e, '/var/db/hostmgr/vms/101/domain.xml', SECRET, '600')],
  ['writeFiles', (e: Executor) => writeFiles(e, { '/var/db/hostmgr/vms/101/user-data': SECRET })],
])('%s: a failing tee names its exit code, never the content it was given', async (_name, write) => {
  const err = (await write(new TeeFails()).catch((e: Error) => e)) as Error & { result?: RunResult };
  expect(err).toBeInstanceOf(Error);
  expect(err.message).toBe('tee exited with 1');
  expect(err.message).not.toContain('PRIVATE KEY');
  expect(JSON.stringify(err.result)).not.toContain('PRIVATE KEY');
});
