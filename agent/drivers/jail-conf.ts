/**
 * jail.conf(5): a reader for what the agent needs (block names, `path`, `host.hostname`, the `exec.*` command
 * lists) and the text edit that rewrites the agent's managed section of a jail's conf, leaving everything an
 * operator wrote untouched.
 *
 * Syntax handled (usr.sbin/jail/jailparse.y): `name { … }` blocks and global parameters; `key;`, `key = value;`,
 * `key += value;`, `key value;` (no operator: replaces), empty statements (`;`), comma lists; "double" (with backslash escapes) and 'single' quoted strings; `$var`/`${var}` references kept as text;
 * `#`, `//` and C comments.
 */
interface ConfParam {
  key: string;
  /** null for a bare boolean parameter (`exec.clean;`) */
  op: '=' | '+=' | null;
  values: string[];
}

interface ConfBlock {
  name: string;
  params: ConfParam[];
  /** offsets of the block's `{` and `}` in the text */
  open: number;
  close: number;
}

export interface ParsedConf {
  globals: ConfParam[];
  jails: ConfBlock[];
}

type Tok = { t: 'word' | 'str' | 'punct'; v: string; at: number };

class ConfSyntaxError extends Error {}

function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new ConfSyntaxError('unterminated comment');
      i = end + 2;
    } else if (c === '"' || c === "'") {
      const at = i++;
      let v = '';
      while (i < n && text[i] !== c) {
        if (c === '"' && text[i] === '\\' && i + 1 < n) {
          const e = text[++i];
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e === '\n' ? '' : e;
        } else v += text[i];
        i++;
      }
      if (i >= n) throw new ConfSyntaxError(`unterminated string at offset ${at}`);
      i++;
      out.push({ t: 'str', v, at });
    } else if (c === '+' && text[i + 1] === '=') {
      out.push({ t: 'punct', v: '+=', at: i });
      i += 2;
    } else if ('{};=,'.includes(c)) {
      out.push({ t: 'punct', v: c, at: i++ });
    } else {
      const at = i;
      let v = '';
      while (i < n && !/[\s{};=,"']/.test(text[i]) && !(text[i] === '+' && text[i + 1] === '=')) {
        if (text[i] === '$' && text[i + 1] === '{') {
          const end = text.indexOf('}', i);
          if (end < 0) throw new ConfSyntaxError(`unterminated \${ at offset ${i}`);
          v += text.slice(i, end + 1);
          i = end + 1;
        } else v += text[i++];
      }
      out.push({ t: 'word', v, at });
    }
  }
  return out;
}

export function parseJailConf(text: string): ParsedConf {
  const toks = tokenize(text);
  let p = 0;
  const peek = () => toks[p];
  const expectValue = (): string => {
    const tok = toks[p++];
    if (!tok || tok.t === 'punct') throw new ConfSyntaxError(`expected a value at offset ${tok?.at ?? text.length}`);
    return tok.v;
  };
  const param = (key: string): ConfParam => {
    const next = peek();
    // jailparse.y `param: name '=' value | name PLEQ value | name value`: the operator may be left out (it replaces)
    const bare = next !== undefined && next.t !== 'punct';
    if (bare || (next?.t === 'punct' && (next.v === '=' || next.v === '+='))) {
      if (!bare) p++;
      const values = [expectValue()];
      while (peek()?.v === ',' && peek().t === 'punct') {
        p++;
        values.push(expectValue());
      }
      if (peek()?.v !== ';') throw new ConfSyntaxError(`expected ';' after ${key} at offset ${peek()?.at ?? text.length}`);
      p++;
      return { key, op: bare ? '=' : (next.v as '=' | '+='), values };
    }
    if (next?.v === ';' && next.t === 'punct') {
      p++;
      return { key, op: null, values: [] };
    }
    throw new ConfSyntaxError(`expected '=', '+=' or ';' after ${key} at offset ${next?.at ?? text.length}`);
  };
  const conf: ParsedConf = { globals: [], jails: [] };
  // jailparse.y `conf ';'` and `param_l ';'`: an empty statement is allowed anywhere
  const emptyStatement = () => peek()?.t === 'punct' && peek().v === ';' && (p++, true);
  while (p < toks.length) {
    if (emptyStatement()) continue;
    const tok = toks[p++];
    if (tok.t === 'punct') throw new ConfSyntaxError(`unexpected '${tok.v}' at offset ${tok.at}`);
    if (peek()?.t === 'punct' && peek().v === '{') {
      const open = toks[p++].at;
      const params: ConfParam[] = [];
      while (p < toks.length && !(peek().t === 'punct' && peek().v === '}')) {
        if (emptyStatement()) continue;
        const k = toks[p++];
        if (k.t === 'punct') throw new ConfSyntaxError(`unexpected '${k.v}' at offset ${k.at}`);
        params.push(param(k.v));
      }
      if (p >= toks.length) throw new ConfSyntaxError(`block ${tok.v} is not closed`);
      const close = toks[p++].at;
      conf.jails.push({ name: tok.v, params, open, close });
    } else conf.globals.push(param(tok.v));
  }
  return conf;
}

/**
 * The effective value list of a parameter for a jail: global settings first, then the block's; `=` replaces
 * the list, `+=` appends (jail(8)).
 */
export function paramValues(conf: ParsedConf, jail: string | null, key: string): string[] {
  const block = jail === null ? undefined : conf.jails.find((b) => b.name === jail);
  let values: string[] = [];
  for (const prm of [...conf.globals, ...(block?.params ?? [])]) {
    if (prm.key !== key) continue;
    values = prm.op === '+=' ? [...values, ...prm.values] : [...prm.values];
  }
  return values;
}

export const paramValue = (conf: ParsedConf, jail: string | null, key: string): string | null => paramValues(conf, jail, key).at(-1) ?? null;

/**
 * jail.conf string literal: `"…"` with `\\`, `\"`, `\n` and `\$` escaped. jail(8) expands `$name` and `${name}`
 * inside double quotes (jaillex.l), so a literal `$` must be escaped or it becomes a variable reference.
 */
export const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\$/g, '\\$')}"`;

export const MANAGED_BEGIN = '### hostmgr: managed hooks and limits, rewritten by the agent ###';
export const MANAGED_END = '### hostmgr: end of managed section ###';

/** Removes the managed section (marker lines and everything between them). */
export function withoutManagedSection(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    const t = line.trim();
    if (t === MANAGED_BEGIN) inside = true;
    else if (t === MANAGED_END) inside = false;
    else if (!inside) out.push(line);
  }
  return out.join('\n');
}

/** Replaces the managed section of jail `name`'s block with `lines` (parameters, without indentation). */
export function withManagedSection(text: string, name: string, lines: string[]): string {
  const base = withoutManagedSection(text);
  if (lines.length === 0) return base;
  const block = parseJailConf(base).jails.find((b) => b.name === name);
  if (!block) throw new ConfSyntaxError(`the conf has no block for jail ${name}`);
  const lineStart = base.lastIndexOf('\n', block.close - 1) + 1;
  const beforeBrace = base.slice(lineStart, block.close);
  const section = [MANAGED_BEGIN, ...lines, MANAGED_END].map((l) => `\t${l}\n`).join('');
  // the closing brace on its own line: insert above it; else put it on a new line after the section
  if (beforeBrace.trim() === '') return base.slice(0, lineStart) + section + base.slice(lineStart);
  return `${base.slice(0, block.close)}\n${section}${base.slice(block.close)}`;
}

/** The agent's header line of a managed conf: `# hostmgr: ctid=101 dataset=zroot/jails/web`. */
const HEADER_PREFIX = '# hostmgr:';

export function parseHeader(text: string): Record<string, string> {
  const line = text.split('\n').find((l) => l.startsWith(HEADER_PREFIX));
  if (!line) return {};
  const out: Record<string, string> = {};
  for (const kv of line.slice(HEADER_PREFIX.length).trim().split(/\s+/)) {
    const i = kv.indexOf('=');
    if (i > 0) out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}

interface NewJailConf {
  ctid: number;
  name: string;
  hostname: string;
  path: string;
  dataset: string | null;
  ip4?: string;
}

/** A new managed jail's conf (classic jail as the FreeBSD Handbook writes it, plus the agent's header). */
export function renderJailConf(j: NewJailConf): string {
  const header = `${HEADER_PREFIX} ctid=${j.ctid}${j.dataset ? ` dataset=${j.dataset}` : ''}`;
  return [
    header,
    `${j.name} {`,
    `\texec.start = "/bin/sh /etc/rc";`,
    `\texec.stop = "/bin/sh /etc/rc.shutdown";`,
    `\texec.consolelog = "/var/log/jail_console_\${name}.log";`,
    `\texec.clean;`,
    `\tmount.devfs;`,
    `\thost.hostname = ${quote(j.hostname)};`,
    `\tpath = ${quote(j.path)};`,
    ...(j.ip4 ? [`\tip4.addr = ${j.ip4};`] : []),
    `}`,
    '',
  ].join('\n');
}
