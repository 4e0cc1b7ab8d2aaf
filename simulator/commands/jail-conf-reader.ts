/**
 * jail(8)'s own reading of a jail.conf(5), independent of the agent's reader so that the two can disagree as a
 * host would. It follows usr.sbin/jail:
 * - jaillex.l: `#`, `//` and C comments; `+=`, `,;={}` tokens; atomic strings of
 *   `[A-Za-z0-9_!%&()\-.:<>?@\[\]^`|~]` plus single `$*+/\` characters; '…' and "…" strings with backslash
 *   escapes (\n, \t, octal, \x.., backslash-newline); `$name` and `${name}` variables, also inside "…" (not
 *   inside '…'). Pieces with no whitespace between them make one string.
 * - jailparse.y: `conf: (jail | param ';' | ';')*`, `jail: STR '{' (param ';' | ';')* '}'`,
 *   `param: name | name '=' value | name '+=' value | name value`, `value: string (',' string)*`. Parameters
 *   outside a block belong to the wildcard pseudo-jail `*`. A syntax error is
 *   `jail: <file> line N: <token>: syntax error` (or `<file>: unexpected EOF`), and jail(8) exits 1.
 * - config.c load_config/add_param: a jail gets `name` from its block, then its own parameters and the
 *   wildcard blocks' in file order; `=` (or no operator) replaces, `+=` appends, a bare `name;` clears;
 *   `name` cannot be redefined. Variables resolve against the jail's parameters:
 *   `<param>: variable "<v>" not found` makes that jail fail; so does a parameter neither jail(8) nor the
 *   kernel knows (`unknown parameter: x`, e.g. `.include`, which this grammar does not have).
 */

type Piece = { kind: 'str'; text: string } | { kind: 'var'; name: string };
type Tok =
  | { t: 'STR' | 'STR1'; piece: Piece; line: number; text: string }
  | { t: 'VAR' | 'VAR1'; piece: Piece; line: number; text: string }
  | { t: 'PLEQ' | 'punct'; v: string; line: number; text: string }
  | { t: 'EOF'; line: number; text: string };

export class JailConfError extends Error {}

const ATOM = /[A-Za-z0-9_!%&()\-.:<>?@[\]^`|~]/;

/** jaillex.l text2lval: backslash escapes of a quoted or atomic string */
function text2lval(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') {
      out += s[i];
      continue;
    }
    const c = s[++i];
    if (c === undefined) break;
    if (c >= '0' && c <= '7') {
      let n = c;
      while (n.length < 3 && s[i + 1] >= '0' && s[i + 1] <= '7') n += s[++i];
      out += String.fromCharCode(Number.parseInt(n, 8));
    } else if (c === 'x') {
      let n = '';
      while (n.length < 2 && /[0-9A-Fa-f]/.test(s[i + 1] ?? '')) n += s[++i];
      out += String.fromCharCode(n ? Number.parseInt(n, 16) : 0);
    } else if (c === '\n') {
      // line continuation
    } else out += ({ a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' } as Record<string, string>)[c] ?? c;
  }
  return out;
}

function lex(text: string, file: string): Tok[] {
  const out: Tok[] = [];
  let line = 1;
  let instr = false;
  let i = 0;
  const n = text.length;
  const push = (kind: 'STR' | 'VAR', piece: Piece, raw: string) => {
    out.push({ t: instr ? (kind === 'STR' ? 'STR1' : 'VAR1') : kind, piece, line, text: raw } as Tok);
    instr = true;
  };
  const countLines = (s: string) => {
    for (const c of s) if (c === '\n') line++;
  };
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      instr = false;
      i++;
    } else if (c === '\n') {
      line++;
      instr = false;
      i++;
    } else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new JailConfError(`jail: ${file} line ${line}: unterminated comment`);
      countLines(text.slice(i, end + 2));
      instr = false;
      i = end + 2;
    } else if (c === '+' && text[i + 1] === '=') {
      instr = false;
      out.push({ t: 'PLEQ', v: '+=', line, text: '+=' });
      i += 2;
    } else if (',;={}'.includes(c)) {
      instr = false;
      out.push({ t: 'punct', v: c, line, text: c });
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < n && text[j] !== "'") j += text[j] === '\\' ? 2 : 1;
      if (j >= n) throw new JailConfError(`jail: ${file} line ${line}: unterminated string`);
      const raw = text.slice(i, j + 1);
      push('STR', { kind: 'str', text: text2lval(raw.slice(1, -1)) }, raw);
      countLines(raw);
      i = j + 1;
    } else if (c === '"') {
      // a double-quoted string: literal runs and variables, each its own piece (the DQ start state)
      let j = i + 1;
      let lit = '';
      let first = true; // the text before the first variable is a string of its own, even when empty
      const startLine = line;
      while (j < n && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < n) {
          lit += text.slice(j, j + 2);
          j += 2;
        } else if (text[j] === '$' && /[A-Za-z_{]/.test(text[j + 1] ?? '')) {
          if (lit || first) push('STR', { kind: 'str', text: text2lval(lit) }, lit);
          first = false;
          lit = '';
          if (text[j + 1] === '{') {
            const end = text.indexOf('}', j);
            if (end < 0 || text.slice(j, end).includes('\n') || text.slice(j, end).includes('"'))
              throw new JailConfError(`jail: ${file} line ${line}: unterminated variable`);
            push('VAR', { kind: 'var', name: text.slice(j + 2, end) }, text.slice(j, end + 1));
            j = end + 1;
          } else {
            const m = /^\$[A-Za-z_][A-Za-z_0-9]*/.exec(text.slice(j))!;
            push('VAR', { kind: 'var', name: m[0].slice(1) }, m[0]);
            j += m[0].length;
          }
        } else lit += text[j++];
      }
      if (j >= n) throw new JailConfError(`jail: ${file} line ${startLine}: unterminated string`);
      if (lit || first) push('STR', { kind: 'str', text: text2lval(lit) }, lit);
      countLines(text.slice(i, j + 1));
      i = j + 1;
    } else if (c === '$' && /[A-Za-z_{]/.test(text[i + 1] ?? '')) {
      if (text[i + 1] === '{') {
        const end = text.indexOf('}', i);
        if (end < 0 || text.slice(i, end).includes('\n')) throw new JailConfError(`jail: ${file} line ${line}: unterminated variable`);
        push('VAR', { kind: 'var', name: text.slice(i + 2, end) }, text.slice(i, end + 1));
        i = end + 1;
      } else {
        const m = /^\$[A-Za-z_][A-Za-z_0-9]*/.exec(text.slice(i))!;
        push('VAR', { kind: 'var', name: m[0].slice(1) }, m[0]);
        i += m[0].length;
      }
    } else if (ATOM.test(c)) {
      let j = i;
      while (j < n && ATOM.test(text[j])) j++;
      push('STR', { kind: 'str', text: text.slice(i, j) }, text.slice(i, j));
      i = j;
    } else if (c === '\\' && i + 1 < n) {
      const m = /^\\([0-7]{1,3}|x[0-9A-Fa-f]{1,2}|[\s\S])/.exec(text.slice(i))!;
      push('STR', { kind: 'str', text: text2lval(m[0]) }, m[0]);
      if (m[1] === '\n') line++;
      i += m[0].length;
    } else if ('$*+/\\'.includes(c)) {
      push('STR', { kind: 'str', text: c }, c);
      i++;
    } else {
      instr = false;
      out.push({ t: 'punct', v: c, line, text: c });
      i++;
    }
  }
  out.push({ t: 'EOF', line, text: '' });
  return out;
}

/** One value: its pieces, variables still unresolved. */
type RawString = Piece[];
interface RawParam {
  name: string;
  isVar: boolean;
  op: '=' | '+=' | null;
  values: RawString[];
}
interface RawJail {
  name: string;
  params: RawParam[];
  seq: number;
}

function parse(toks: Tok[], file: string): RawJail[] {
  let p = 0;
  const jails: RawJail[] = [];
  const syntax = (tok: Tok): never => {
    if (tok.t === 'EOF') throw new JailConfError(`jail: ${file}: unexpected EOF`);
    throw new JailConfError(`jail: ${file} line ${tok.line}: ${tok.text}: syntax error`);
  };
  const isPunct = (tok: Tok, v: string) => tok.t === 'punct' && tok.v === v;
  const string = (): RawString => {
    const first = toks[p];
    if (first.t !== 'STR' && first.t !== 'VAR') syntax(first);
    const pieces: Piece[] = [(first as { piece: Piece }).piece];
    p++;
    while (toks[p].t === 'STR1' || toks[p].t === 'VAR1') pieces.push((toks[p++] as { piece: Piece }).piece);
    return pieces;
  };
  const value = (): RawString[] => {
    const out = [string()];
    while (isPunct(toks[p], ',')) {
      p++;
      out.push(string());
    }
    return out;
  };
  const param = (): RawParam => {
    const name = toks[p];
    if (name.t !== 'STR' && name.t !== 'VAR') syntax(name);
    p++;
    const piece = (name as { piece: Piece }).piece;
    const out: RawParam = { name: piece.kind === 'str' ? piece.text : piece.name, isVar: name.t === 'VAR', op: null, values: [] };
    const next = toks[p];
    if (isPunct(next, '=') || next.t === 'PLEQ') {
      p++;
      out.op = next.t === 'PLEQ' ? '+=' : '=';
      out.values = value();
    } else if (next.t === 'STR' || next.t === 'VAR') out.values = value();
    if (!isPunct(toks[p], ';')) syntax(toks[p]);
    p++;
    return out;
  };
  let seq = 0;
  while (toks[p].t !== 'EOF') {
    const tok = toks[p];
    if (isPunct(tok, ';')) {
      p++;
    } else if (tok.t === 'STR' && isPunct(toks[p + 1], '{')) {
      p += 2;
      const params: RawParam[] = [];
      while (!isPunct(toks[p], '}')) {
        if (isPunct(toks[p], ';')) p++;
        else params.push(param());
      }
      p++;
      jails.push({ name: (tok.piece as { text: string }).text, params, seq: ++seq });
    } else {
      const prm = param();
      const last = jails.at(-1);
      if (last?.name === '*') last.params.push(prm);
      else jails.push({ name: '*', params: [prm], seq: ++seq });
    }
  }
  return jails;
}

/**
 * Parameters jail(8) knows: its own (config.c intparams[]) and the kernel's (security.jail.param.*, which
 * jailparam_init looks up; families by prefix). Anything else is `unknown parameter: <name>` (libjail).
 */
const KNOWN = new Set([
  'allow.dying',
  'command',
  'depend',
  'exec.clean',
  'exec.consolelog',
  'exec.fib',
  'exec.jail_user',
  'exec.poststart',
  'exec.poststop',
  'exec.prepare',
  'exec.prestart',
  'exec.prestop',
  'exec.release',
  'exec.created',
  'exec.start',
  'exec.stop',
  'exec.system_jail_user',
  'exec.system_user',
  'exec.timeout',
  'interface',
  'ip_hostname',
  'mount',
  'mount.devfs',
  'mount.fdescfs',
  'mount.procfs',
  'mount.fstab',
  'stop.timeout',
  'vnet.interface',
  'name',
  'jid',
  'path',
  'persist',
  'securelevel',
  'vnet',
  'devfs_ruleset',
  'enforce_statfs',
  'osrelease',
  'osreldate',
  'parent',
  'dying',
  'cpuset.id',
  'sysvmsg',
  'sysvsem',
  'sysvshm',
  'ip4',
  'ip6',
  'ip4.addr',
  'ip6.addr',
  'ip4.saddrsel',
  'ip6.saddrsel',
  'ip4.nohostname',
]);
const KNOWN_FAMILIES = ['allow.', 'host.', 'children.', 'linux.', 'zfs.', 'mac.', 'ip4.', 'ip6.'];
/** boolean parameters may be written negated: `allow.nomount`, `nopersist` (jailparam_init) */
const known = (name: string) => {
  const plain = name.replace(/(^|\.)no([a-z_]+)$/, '$1$2');
  return [name, plain].some((n) => KNOWN.has(n) || KNOWN_FAMILIES.some((f) => n.startsWith(f)));
};

/** A jail's parameters as jail(8) resolved them: name → value list (empty for a bare boolean). */
export type JailParams = Map<string, string[]>;

const wildMatch = (name: string, pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(name);

/**
 * The parameters of jail `name` from the conf text, or the message jail(8) prints and fails with. A jail the
 * file does not define is `jail: "<name>" not found` (start_state).
 */
export function readJailParams(text: string, file: string, name: string): JailParams | string {
  let jails: RawJail[];
  try {
    jails = parse(lex(text, file), file);
  } catch (e) {
    if (e instanceof JailConfError) return e.message;
    throw e;
  }
  const self = jails.find((j) => j.name === name && !j.name.includes('*'));
  if (!self) return `jail: "${name}" not found`;
  const wild = jails.filter((j) => j.name.includes('*'));
  const ordered: RawParam[] = [];
  let didSelf = false;
  for (const w of wild) {
    if (self.seq < w.seq && !didSelf) {
      ordered.push(...self.params);
      didSelf = true;
    }
    if (wildMatch(name, w.name)) ordered.push(...w.params);
  }
  if (!didSelf) ordered.push(...self.params);

  const params = new Map<string, { isVar: boolean; values: RawString[] }>();
  params.set('name', { isVar: false, values: [[{ kind: 'str', text: name }]] });
  for (const prm of ordered) {
    const prev = params.get(prm.name);
    if (prev && prev.isVar !== prm.isVar) return `jail: ${name}: variable "$${prm.name}" cannot have the same name as a parameter.`;
    if (prev && prm.name === 'name') return `jail: ${name}: cannot redefine parameter "name".`;
    if (prev && prm.op === '+=' && prm.values.length) prev.values.push(...prm.values);
    else params.set(prm.name, { isVar: prm.isVar, values: [...prm.values] });
  }

  const resolved: JailParams = new Map();
  const resolving = new Set<string>();
  const resolve = (key: string): string[] | string => {
    const done = resolved.get(key);
    if (done) return done;
    const prm = params.get(key)!;
    if (resolving.has(key)) return `jail: ${name}: ${key}: variable loop`;
    resolving.add(key);
    const out: string[] = [];
    for (const pieces of prm.values) {
      let s = '';
      for (const piece of pieces) {
        if (piece.kind === 'str') {
          s += piece.text;
          continue;
        }
        const ref = params.get(piece.name);
        if (!ref || !ref.values.length) return `jail: ${name}: ${key}: variable "${piece.name}" not found`;
        const v = resolve(piece.name);
        if (typeof v === 'string') return v;
        if (v.length > 1 && pieces.length > 1) return `jail: ${name}: ${key}: array cannot be substituted inline`;
        s += v.join('');
      }
      out.push(s);
    }
    resolving.delete(key);
    resolved.set(key, out);
    return out;
  };
  const result: JailParams = new Map();
  for (const [key, prm] of params) {
    const v = resolve(key);
    if (typeof v === 'string') return v;
    if (!prm.isVar) result.set(key, v);
  }
  for (const key of result.keys()) if (!known(key)) return `jail: ${name}: unknown parameter: ${key}`;
  return result;
}
