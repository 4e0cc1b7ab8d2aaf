import { Command, CommanderError } from 'commander';
import { ApiError, Client } from './client.ts';
import { apiBase, writeConfig } from './config.ts';
import type { Io } from './context.ts';
import { addGeneratedCommands } from './generated-commands.ts';
import type { Operation } from './operations.ts';
import { addVerbs } from './verbs.ts';
import { addTokenVerbs } from './token-verbs.ts';
import { addSnapshotVerbs } from './snapshot-verbs.ts';

/**
 * hostmgr: the control plane from a shell. Exit codes: 0 done; 1 the API refused or could not be reached (its
 * message printed); 2 a usage error; a followed task's outcome otherwise (watch.ts); 130 detached.
 */
export async function run(argv: string[], operations: Operation[], io: Io): Promise<number> {
  const program = new Command('hostmgr')
    .description(
      'Manage FreeBSD hosts through the hostmgr control plane. Every API operation has a command (named by its operationId); the daily ones also have friendly verbs.',
    )
    .option('--url <url>', 'the API, e.g. http://localhost:3000/api (default: HOSTMGR_URL, then hostmgr login)')
    .option('--token <token>', 'bearer token (default: HOSTMGR_TOKEN, then hostmgr login)')
    .option('--json', "print the answer's data as JSON (for scripts)")
    .option('--detach', 'do not follow a queued task: print its id and return')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addHelpText(
      'after',
      '\nExamples:\n  hostmgr login http://localhost:3000/api --token hm_…\n  hostmgr nodes\n  hostmgr jail migrate 101 --to lab-3\n  hostmgr jail-get 101 --json\n',
    );

  program
    .command('login <url>')
    .description('check a token against the API and keep both in $XDG_CONFIG_HOME/hostmgr/config.json (mode 0600)')
    .addHelpText('after', '\nExample:\n  hostmgr login http://localhost:3000/api --token hm_…   (or the token on standard input)\n')
    .action(async (url: string, _o, cmd: Command) => {
      const token = (cmd.optsWithGlobals() as { token?: string }).token ?? io.env.HOSTMGR_TOKEN ?? (await readLine(io));
      if (!token) throw new Error('no token: give --token, HOSTMGR_TOKEN, or the token on standard input');
      const base = apiBase(url);
      await new Client(base, token).call('GET', '/notifications/count');
      io.stdout.write(`logged in to ${base}; saved in ${writeConfig(io.env, { url: base, token })}\n`);
    });

  addVerbs(program, io);
  addTokenVerbs(program, io);
  addSnapshotVerbs(program, io);
  addGeneratedCommands(program, operations, io);
  // every subcommand answers like the program: errors through io, no process.exit
  for (const cmd of allCommands(program)) cmd.exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      if (err.code === 'commander.unknownOption') io.stderr.write(`valid options: ${validOptions(program, argv).join(' ') || '(none)'}\n`);
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof ApiError) {
      io.stderr.write(`error: ${err.envelope.message}${err.envelope.error ? `: ${err.envelope.error}` : ''} (HTTP ${err.status})\n`);
      return 1;
    }
    io.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
}

function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** The options of the command the user named (for an unknown-option error). */
function validOptions(program: Command, argv: string[]): string[] {
  let cmd = program;
  for (const word of argv) {
    const sub = cmd.commands.find((c) => c.name() === word);
    if (!sub) break;
    cmd = sub;
  }
  return [...cmd.options, ...program.options].map((o) => o.long ?? o.short ?? '').filter(Boolean);
}

async function readLine(io: Io): Promise<string | undefined> {
  const stdin = process.stdin;
  if (stdin.isTTY) io.stderr.write('token: ');
  let text = '';
  for await (const chunk of stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0].trim() || undefined;
}
