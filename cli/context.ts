import type { Command } from 'commander';
import { Client } from './client.ts';
import { resolveTarget } from './config.ts';
import { human, json, safe } from './output.ts';
import { watchTask } from './watch.ts';

/** What a command's action needs: where to write, the environment, the user's detach request (Ctrl-C). */
export interface Io {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  detach: Promise<void>;
  /** the exit code the run ends with; actions set it */
  exitCode: number;
}

export interface GlobalFlags {
  url?: string;
  token?: string;
  json?: boolean;
  detach?: boolean;
}

export const flagsOf = (cmd: Command) => cmd.optsWithGlobals() as GlobalFlags;

export function clientFor(cmd: Command, io: Io): Client {
  const { url, token } = resolveTarget(flagsOf(cmd), io.env);
  return new Client(url, token);
}

/**
 * One API call as a command: prints the answer (table or --json), and when it queued a task, follows the task
 * until it ends (unless --detach) and exits with the task's outcome.
 */
export async function perform(
  cmd: Command,
  io: Io,
  method: string,
  path: string,
  opts: { query?: Record<string, string>; body?: unknown; view?: (data: unknown) => string } = {},
): Promise<void> {
  const flags = flagsOf(cmd);
  const client = clientFor(cmd, io);
  const answer = await client.call(method, path, opts);
  const data = answer.envelope.data;
  if (flags.json) io.stdout.write(json(data));
  else if (answer.taskId === null) io.stdout.write(opts.view ? opts.view(data) : human(data));
  if (answer.taskId === null) return;
  // a queued task: one line, then (unless --detach) the task followed to its end
  if (!flags.json)
    io.stdout.write(`${safe(answer.envelope.message, true)}: task ${answer.taskId}${flags.detach ? `; follow it: hostmgr task watch ${answer.taskId}` : ''}\n`);
  if (flags.detach) return;
  io.exitCode = await watchTask(client, answer.taskId, { stdout: flags.json ? io.stderr : io.stdout, detach: io.detach });
}
