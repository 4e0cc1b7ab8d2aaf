import type { SimHost } from '#shared/seed/host/schema';
import { fileMode, readFile, resolvePath, SymlinkLoopError } from './file-tree.ts';
import { BadPropertyError, UsageError } from './format.ts';

/**
 * A small sh(1) for the commands jail(8) runs (exec.* parameters) and the scripts they name: enough of the
 * language for hook and limits scripts — one simple command per line or joined by `;`, `&&`, `||`; quotes;
 * `<` redirection; `#` comments; `set -e`; `exit`, `true`, `false`, `:`, `echo`. A script's status is its last
 * command's, or exit's (sh(1)), unless `set -e` stops it at the first failure outside an `&&`/`||` list.
 *
 * Commands: the ones registered with {@link registerScriptCommand} (those that change simulated kernel state:
 * cpuset, rctl, jexec) run for real; a script file the host has (the agent's hooks and limits) is interpreted
 * when it is executable and has no interpreter line or a /bin/sh one. Everything else is not modelled and
 * succeeds silently (ifconfig, service, a jail's /etc/rc …) — except a missing file under the agent's own tree
 * (/usr/local/etc/hostmgr), which fails as it would on a host (`not found`, exit 127).
 * Inside a jail (`root` set), paths and symbolic links resolve below the jail's root, as after chroot(2).
 */
export interface ShellContext {
  state: SimHost;
  now: number;
  /** `/`, or the jail's root for a command jail(8) or jexec(8) runs inside a jail */
  root: string;
}

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

type ScriptCommand = (sh: ShellContext, argv: string[], stdin: string) => ShellResult;
const scriptCommands = new Map<string, ScriptCommand>();

/** A command a script can run with effect (by basename). */
export function registerScriptCommand(name: string, fn: ScriptCommand): void {
  scriptCommands.set(name, fn);
}

const AGENT_TREE = '/usr/local/etc/hostmgr/';
const ok = (stdout = ''): ShellResult => ({ code: 0, stdout, stderr: '' });
const failed = (code: number, stderr: string): ShellResult => ({ code, stdout: '', stderr });

/** The file a path names for this shell (below the jail's root inside a jail), or null. */
function hostPath(sh: ShellContext, path: string): string | null {
  try {
    return resolvePath(sh.state, path, { root: sh.root });
  } catch (e) {
    if (e instanceof SymlinkLoopError) return null;
    throw e;
  }
}

function readScript(sh: ShellContext, path: string): string | null {
  const p = hostPath(sh, path);
  return p === null ? null : readFile(sh.state, p);
}

/** Words of a command line (quotes removed, backslash escapes), split at `;`, `&&`, `||` outside quotes. */
type Token = { word: string } | { op: ';' | '&&' | '||' };

function tokenize(line: string): Token[] {
  const out: Token[] = [];
  let word: string | null = null;
  const flush = () => {
    if (word !== null) out.push({ word });
    word = null;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '#' && word === null) break;
    if (c === ' ' || c === '\t') flush();
    else if (c === ';') {
      flush();
      out.push({ op: ';' });
    } else if ((c === '&' || c === '|') && line[i + 1] === c) {
      flush();
      out.push({ op: c === '&' ? '&&' : '||' });
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let v = '';
      for (i++; i < line.length && line[i] !== '"'; i++) v += line[i] === '\\' && i + 1 < line.length ? line[++i] : line[i];
      word = (word ?? '') + v;
    } else if (c === '\\' && i + 1 < line.length) word = (word ?? '') + line[++i];
    else word = (word ?? '') + c;
  }
  flush();
  return out;
}

class Exit {
  constructor(readonly code: number) {}
}

/** One simple command: redirections taken out, then a builtin, a script command, a script file, or nothing. */
function simple(sh: ShellContext, words: string[], stdin: string): ShellResult {
  const argv: string[] = [];
  let input = stdin;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === '<' || (w.startsWith('<') && w.length > 1)) {
      const file = w === '<' ? words[++i] : w.slice(1);
      const content = file === undefined ? null : readScript(sh, file);
      if (content === null) return failed(2, `sh: cannot open ${file ?? ''}: No such file or directory\n`);
      input = content;
    } else if (/^[12]?>>?/.test(w)) {
      if (/^[12]?>>?$/.test(w)) i++; // output redirection: the target is not modelled
    } else argv.push(w);
  }
  if (!argv.length) return ok();
  const [cmd, ...args] = argv;
  switch (cmd) {
    case 'exit':
      throw new Exit(args[0] === undefined ? -1 : Number(args[0]) & 255);
    case 'true':
    case ':':
    case 'set':
      return ok();
    case 'false':
      return failed(1, '');
    case 'echo':
      return ok(`${args.join(' ')}\n`);
  }
  return run(sh, argv, input);
}

function withUsageErrors(fn: ScriptCommand): ScriptCommand {
  return (sh, argv, stdin) => {
    try {
      return fn(sh, argv, stdin);
    } catch (e) {
      if (e instanceof UsageError || e instanceof BadPropertyError) return failed(2, `${e.message}\n`);
      throw e;
    }
  };
}

/** A program by name or path (what execvp finds), with its standard input. */
export function run(sh: ShellContext, argv: string[], stdin: string): ShellResult {
  const [cmd] = argv;
  const base = cmd.slice(cmd.lastIndexOf('/') + 1);
  if (base === 'sh') return runSh(sh, argv.slice(1), stdin);
  const found = scriptCommands.get(base);
  const registered = found && withUsageErrors(found);
  if (!cmd.includes('/')) return registered ? registered(sh, argv, stdin) : ok();
  const path = hostPath(sh, cmd);
  const mode = path === null ? null : fileMode(sh.state, path);
  if (mode === null) {
    if (registered) return registered(sh, argv, stdin);
    return cmd.startsWith(AGENT_TREE) ? failed(127, `sh: ${cmd}: not found\n`) : ok();
  }
  if (!(Number.parseInt(mode, 8) & 0o100)) return failed(126, `sh: ${cmd}: Permission denied\n`);
  const text = readFile(sh.state, path!) ?? '';
  const shebang = /^#!\s*(\S+)/.exec(text)?.[1];
  if (shebang !== undefined && !/(^|\/)sh$/.test(shebang)) return ok(); // another interpreter: not modelled
  return script(sh, text, stdin);
}

/** sh [-e] [-c string | -s | file] */
function runSh(sh: ShellContext, args: string[], stdin: string): ShellResult {
  let errexit = false;
  let i = 0;
  for (; i < args.length && /^-[a-z]+$/.test(args[i]); i++) {
    if (args[i].includes('c')) return script(sh, args[i + 1] ?? '', stdin, args[i].includes('e'));
    if (args[i].includes('e')) errexit = true;
  }
  const file = args[i];
  if (file === undefined) return script(sh, stdin, '', errexit);
  const text = readScript(sh, file);
  if (text === null) return file.startsWith(AGENT_TREE) ? failed(2, `sh: cannot open ${file}: No such file or directory\n`) : ok();
  return script(sh, text, stdin, errexit);
}

/** A script (several lines); its exit status as sh(1) gives it. */
export function script(sh: ShellContext, text: string, stdin = '', errexit = false): ShellResult {
  let stdout = '';
  let stderr = '';
  let status = 0;
  try {
    for (const line of text.split('\n')) {
      const toks = tokenize(line);
      if (toks.length && 'word' in toks[0] && toks[0].word === 'set' && toks.some((t) => 'word' in t && /^-\w*e/.test(t.word))) errexit = true;
      let words: string[] = [];
      let skip = false;
      const finish = (op: ';' | '&&' | '||' | null) => {
        if (words.length && !skip) {
          const r = simple(sh, words, stdin);
          stdout += r.stdout;
          stderr += r.stderr;
          status = r.code;
          // set -e: not for a command of an AND-OR list other than the last
          if (errexit && status !== 0 && op !== '&&' && op !== '||') throw new Exit(status);
        }
        words = [];
        skip = op === '&&' ? status !== 0 : op === '||' ? status === 0 : false;
      };
      for (const t of toks) {
        if ('op' in t) finish(t.op);
        else words.push(t.word);
      }
      finish(null);
    }
  } catch (e) {
    if (!(e instanceof Exit)) throw e;
    status = e.code < 0 ? status : e.code;
  }
  return { code: status, stdout, stderr };
}
