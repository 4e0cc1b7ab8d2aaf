/**
 * hostmgr, the command-line client (npm run hostmgr -- …; bundled into dist/cli/hostmgr.js). The OpenAPI
 * document is built in, so the bundle runs wherever Node runs, without the repository.
 */
import doc from '#generated/openapi.json' with { type: 'json' };
import type { Io } from './context.ts';
import { operationsOf } from './operations.ts';
import { run } from './program.ts';

// Ctrl-C while a task is followed detaches from it (the task goes on); a second one ends the CLI at once
let interrupted = 0;
const detach = new Promise<void>((resolve) =>
  process.on('SIGINT', () => {
    if (++interrupted > 1) process.exit(130);
    resolve();
  }),
);
const io: Io = { env: process.env, stdout: process.stdout, stderr: process.stderr, detach, exitCode: 0 };
const code = await run(process.argv.slice(2), operationsOf(doc), io);
process.exit(code);
