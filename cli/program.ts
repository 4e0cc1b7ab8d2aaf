import { Command, CommanderError } from 'commander';
import { ApiError, Client } from './client.ts';
import { apiBase, writeConfig } from './config.ts';
import type { Io } from './context.ts';
import { addGeneratedCommands } from './generated-commands.ts';
import type { Operation } from './operations.ts';
import { safe } from './output.ts';
import { readSecret } from './secret-input.ts';
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
    .option('--token <token>', 'bearer token (default: HOSTMGR_TOKEN, then hostmgr login); prefer those: an argument shows in `ps`')
    .option('--json', "print the answer's data as JSON (for scripts)")
    .option('--detach', 'do not follow a queued task: print its id and return')
    .option('--all', 'with --help: also list the routes only a node agent calls (agent-*)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addHelpText(
      'after',
      '\nExamples:\n  hostmgr login http://localhost:3000/api   (asks for the token; or HOSTMGR_TOKEN)\n  hostmgr nodes\n  hostmgr jail migrate 101 --to lab-3\n  hostmgr jail-get 101 --json\n  hostmgr --help --all   (also the agent-* routes)\n',
    );

  program
    .command('login <url>')
    .description(
      'check a token against the API and keep both in $XDG_CONFIG_HOME/hostmgr/config.json (mode 0600); the token is typed at the prompt (not echoed), piped on standard input, or taken from HOSTMGR_TOKEN',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  hostmgr login http://localhost:3000/api                      (type or paste the token; it is not echoed)\n  hostmgr login http://localhost:3000/api < ~/.hostmgr-token\n  HOSTMGR_TOKEN=hm_… hostmgr login http://localhost:3000/api\n',
    )
    .action(async (url: string, _o, cmd: Command) => {
      const flag = (cmd.optsWithGlobals() as { token?: string }).token;
      // a token given as an argument is visible to every user in `ps` and kept in the shell's history
      if (flag) io.stderr.write('warning: --token puts the token in `ps` and in your shell history; type it at the prompt or set HOSTMGR_TOKEN\n');
      const token = flag ?? io.env.HOSTMGR_TOKEN ?? (await readSecret('token: ', process.stdin, io.stderr));
      if (!token) throw new Error('no token: type it at the prompt, give it on standard input, or set HOSTMGR_TOKEN');
      const base = apiBase(url);
      await new Client(base, token).call('GET', '/notifications/count');
      io.stdout.write(`logged in to ${base}; saved in ${writeConfig(io.env, { url: base, token })}\n`);
    });

  addVerbs(program, io);
  addTokenVerbs(program, io);
  addSnapshotVerbs(program, io);
  // the friendly verbs and login first, then every API operation; the agent's routes only with --all
  addGeneratedCommands(program, operations, io, { showAgentRoutes: argv.includes('--all') });
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
    // an error's words may be the API's (or a server's that is not the API): made harmless for the terminal
    if (err instanceof ApiError) {
      io.stderr.write(`error: ${safe(err.envelope.message, true)}${err.envelope.error ? `: ${safe(err.envelope.error)}` : ''} (HTTP ${err.status})\n`);
      return 1;
    }
    io.stderr.write(`error: ${safe((err as Error).message)}\n`);
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
