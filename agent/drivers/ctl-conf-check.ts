import { isIP } from 'node:net';

/**
 * ctld(8)'s reading of a ctl.conf(5), as the C ctld of FreeBSD 14 does it (usr.sbin/ctld/token.l, parse.y,
 * ctld.c conf_verify and the *_new/*_find helpers; the 15.0 ctld keeps the grammar and messages): the agent's
 * own check of the file it is about to install, and what the simulated ctld reads.
 *
 * The lexer is token.l's: every keyword is a rule listed before the bare-word rule `[a-zA-Z0-9.\-@_/:\[\]]+`,
 * and flex takes the longest match, the earlier rule on equal length — so a bare word that equals a keyword
 * (`port`, `size`, `tag`, `be`, `cs0` …) is that keyword, never a name. `"[^"]+"` is a string (no escapes, may
 * span lines, never empty); any other single character is a one-character string; `#` to the end of the line is
 * a comment; `;` may end a statement. Messages are ctld's log_warnx texts (the caller prefixes `ctld: `).
 */
export interface CtlConfSummary {
  portalGroups: string[];
  targets: Array<{ name: string; portalGroups: string[]; luns: Array<{ number: number; path: string }> }>;
  /** what ctld logs but accepts (a target without LUNs, a name iSCSI does not allow) */
  warnings: string[];
}

export class CtlConfError extends Error {}

const KEYWORDS = new Set(
  (
    'alias auth-group auth-type backend blocksize chap chap-mutual ctl-lun debug device-id device-type discovery-auth-group ' +
    'discovery-filter dscp pcp foreign initiator-name initiator-portal listen listen-iser lun maxproc offload option path ' +
    'pidfile isns-server isns-period isns-timeout port portal-group redirect serial size tag target timeout ' +
    'af11 af12 af13 af21 af22 af23 af31 af32 af33 af41 af42 af43 be ef cs0 cs1 cs2 cs3 cs4 cs5 cs6 cs7'
  ).split(' '),
);
const DSCP_NAMES = new Set('af11 af12 af13 af21 af22 af23 af31 af32 af33 af41 af42 af43 be ef cs0 cs1 cs2 cs3 cs4 cs5 cs6 cs7'.split(' '));

/** ctld's limits (ctld.h): LUNs per target, and the iSCSI name length (RFC 3720) */
const MAX_LUNS = 1024;
const MAX_NAME_LEN = 223;

type Token = { kind: 'kw' | 'str' | '{' | '}' | ';' | 'eof'; value: string; text: string; line: number };

const BARE = /[a-zA-Z0-9.\-@_/:[\]]+/y;

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === '\r' && src[i + 1] === '\n') {
      line++;
      i += 2;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '{' || c === '}' || c === ';') {
      out.push({ kind: c, value: c, text: c, line });
      i++;
      continue;
    }
    if (c === '"') {
      const end = src.indexOf('"', i + 1);
      if (end > i + 1) {
        // the quoted rule does not count the newlines it spans (only the \n rules do)
        out.push({ kind: 'str', value: src.slice(i + 1, end), text: src.slice(i, end + 1), line });
        i = end + 1;
        continue;
      }
    }
    BARE.lastIndex = i;
    const m = BARE.exec(src);
    if (m) {
      out.push({ kind: KEYWORDS.has(m[0]) ? 'kw' : 'str', value: m[0], text: m[0], line });
      i += m[0].length;
      continue;
    }
    // flex's `.` rule: any other character is a one-character string
    out.push({ kind: 'str', value: c, text: c, line });
    i++;
  }
  out.push({ kind: 'eof', value: '', text: '', line });
  return out;
}

/** libutil expand_number(3): a number (strtoumax base 0) with an optional k/m/g/t/p/e unit */
function expandNumber(s: string): number | null {
  const m = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([kKmMgGtTpPeE]?)[bB]?$/.exec(s);
  if (!m) return null;
  const n = Number(m[1].startsWith('0x') || m[1].startsWith('0X') ? m[1] : /^0[0-7]+$/.test(m[1]) ? `0o${m[1].slice(1)}` : m[1]);
  const shift = ' kmgtpe'.indexOf(m[2].toLowerCase() || ' ');
  return n * 1024 ** shift;
}

/** ctld.c parse_addr_port + getaddrinfo(3) for numeric hosts: `[v6]`, `[v6]:port`, bare v6, `v4`, `v4:port` */
function listenOk(s: string): boolean {
  let addr: string;
  let port = '3260';
  if (s.startsWith('[')) {
    const close = s.indexOf(']');
    if (close < 0) return false;
    addr = s.slice(1, close);
    const rest = s.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return false;
    if (rest !== '') port = rest.slice(1);
  } else if ((s.match(/:/g) ?? []).length > 1) addr = s;
  else {
    const [a, p] = s.split(':');
    addr = a;
    if (p !== undefined) port = p;
  }
  const portOk = /^[0-9]+$/.test(port) ? Number(port) <= 65535 : port === 'iscsi-target';
  return isIP(addr) !== 0 && portOk;
}

interface Target {
  name: string;
  alias?: string;
  authGroup?: string;
  explicitAuth?: boolean;
  portalGroups: string[];
  luns: Array<{ number: number; path: string }>;
}

/** Parses and verifies; throws {@link CtlConfError} with ctld's message. */
export function checkCtlConf(src: string): CtlConfSummary {
  const toks = tokenize(src);
  let i = 0;
  const warnings: string[] = [];
  const peek = () => toks[i];
  const fail = (msg: string): never => {
    throw new CtlConfError(msg);
  };
  const yyerror = (t: Token, what: string): never => fail(`error in configuration file at line ${t.line} near '${t.text}': ${what}`);
  const syntax = (): never => yyerror(peek(), 'syntax error');
  const accept = (kind: Token['kind'], value?: string) => {
    const t = peek();
    if (t.kind === kind && (value === undefined || t.value === value)) {
      i++;
      return t;
    }
    return null;
  };
  const str = () => accept('str')?.value ?? syntax();
  const open = () => accept('{') ?? syntax();
  const number = (t: Token, near: Token) => expandNumber(t.value) ?? yyerror(near, 'invalid numeric value');
  const numeric = () => {
    const t = peek();
    str();
    return number(t, t);
  };

  const authGroups = new Set(['default', 'no-authentication', 'no-access']);
  let defaultAgDefined = false;
  const portalGroups = new Map<string, { discovery?: string; assigned: boolean }>([['default', { assigned: false }]]);
  let defaultPgDefined = false;
  const targets: Target[] = [];
  const namedLuns = new Set<string>();
  let pidfile = false;

  const lunBlock = (name: string): string | undefined => {
    let path: string | undefined;
    let backend: string | undefined;
    let size = 0;
    const seen = new Set<string>();
    const once = (what: string, msg: string) => {
      if (seen.has(what)) fail(`${msg} for lun "${name}" specified more than once`);
      seen.add(what);
    };
    open();
    while (!accept('}')) {
      const kw = accept('kw') ?? syntax();
      switch (kw.value) {
        case 'backend':
          once('backend', 'backend');
          backend = str();
          break;
        case 'blocksize':
          numeric();
          once('blocksize', 'blocksize');
          break;
        case 'device-id':
          str();
          once('device-id', 'device_id');
          break;
        case 'device-type': {
          const t = peek();
          const v = str();
          if (!/^(disk|direct|processor|cd|cdrom|dvd|dvdrom)$/i.test(v) && (expandNumber(v) ?? 16) > 15) yyerror(t, 'invalid numeric value');
          break;
        }
        case 'ctl-lun':
          numeric();
          once('ctl-lun', 'ctl_lun');
          break;
        case 'option':
          str();
          str();
          break;
        case 'path':
          once('path', 'path');
          path = str();
          break;
        case 'serial':
          str();
          once('serial', 'serial');
          break;
        case 'size':
          size = numeric();
          once('size', 'size');
          break;
        default:
          i--;
          syntax();
      }
      accept(';');
    }
    // conf_verify_lun: the block backend (the default) needs a path, ramdisk a size and no path
    if ((backend ?? 'block') === 'block' && path === undefined) fail(`missing path for lun "${name}"`);
    if (backend === 'ramdisk' && size === 0) fail(`missing size for ramdisk-backed lun "${name}"`);
    if (backend === 'ramdisk' && path !== undefined) fail(`path must not be specified for ramdisk-backed lun "${name}"`);
    return path;
  };

  const targetBlock = (t: Target) => {
    const explicit = (what: string) => {
      if (t.authGroup !== undefined) fail(`cannot use both auth-group and ${what} for target "${t.name}"`);
      t.explicitAuth = true;
    };
    open();
    while (!accept('}')) {
      const kw = accept('kw') ?? syntax();
      switch (kw.value) {
        case 'alias':
          if (t.alias !== undefined) fail(`alias for target "${t.name}" specified more than once`);
          t.alias = str();
          break;
        case 'auth-group': {
          const name = str();
          if (t.authGroup !== undefined) fail(`auth-group for target "${t.name}" specified more than once`);
          if (t.explicitAuth) fail(`cannot use both auth-group and explicit authorisations for target "${t.name}"`);
          if (!authGroups.has(name)) fail(`unknown auth-group "${name}" for target "${t.name}"`);
          t.authGroup = name;
          break;
        }
        case 'auth-type': {
          explicit('auth-type');
          const v = str();
          if (!['none', 'deny', 'chap', 'chap-mutual'].includes(v)) fail(`invalid auth-type "${v}" for target "${t.name}"`);
          break;
        }
        case 'chap':
          str();
          str();
          explicit('chap');
          break;
        case 'chap-mutual':
          for (let k = 0; k < 4; k++) str();
          explicit('chap-mutual');
          break;
        case 'initiator-name':
          str();
          explicit('initiator-name');
          break;
        case 'initiator-portal':
          str();
          explicit('initiator-portal');
          break;
        case 'portal-group': {
          const pg = str();
          // `portal-group <name> [<auth-group>]`: a string right after the name is the auth-group
          const ag = peek().kind === 'str' ? str() : undefined;
          const group = portalGroups.get(pg) ?? fail(`unknown portal-group "${pg}" for target "${t.name}"`);
          if (ag !== undefined && !authGroups.has(ag)) fail(`unknown auth-group "${ag}" for target "${t.name}"`);
          if (t.portalGroups.includes(pg)) fail(`can't link portal-group "${pg}" to target "${t.name}"`);
          group.assigned = true;
          t.portalGroups.push(pg);
          break;
        }
        case 'port':
        case 'redirect':
          str();
          break;
        case 'lun': {
          const numTok = peek();
          str();
          if (peek().kind === 'str') {
            // `lun <number> <name>`: a LUN defined at the top level
            const ref = str();
            const n = number(numTok, numTok);
            if (n >= MAX_LUNS) yyerror(peek(), 'LU number is too big');
            // lun_find fails without a message of its own
            if (!namedLuns.has(ref)) fail('');
            break;
          }
          const n = number(numTok, peek());
          if (n >= MAX_LUNS) yyerror(peek(), 'LU number is too big');
          const name = `${t.name},lun,${n}`;
          const path = lunBlock(name);
          t.luns.push({ number: n, path: path ?? '' });
          break;
        }
        default:
          i--;
          syntax();
      }
      accept(';');
    }
  };

  while (peek().kind !== 'eof') {
    const kw = accept('kw') ?? syntax();
    switch (kw.value) {
      case 'debug':
      case 'timeout':
      case 'maxproc':
      case 'isns-period':
      case 'isns-timeout':
        numeric();
        break;
      case 'pidfile':
        str();
        if (pidfile) fail('pidfile specified more than once');
        pidfile = true;
        break;
      case 'isns-server':
        str();
        break;
      case 'auth-group': {
        const name = str();
        if (name === 'default' && !defaultAgDefined) defaultAgDefined = true;
        else if (authGroups.has(name)) fail(`duplicated auth-group "${name}"`);
        authGroups.add(name);
        open();
        while (!accept('}')) {
          const e = accept('kw') ?? syntax();
          if (e.value === 'auth-type') {
            const v = str();
            if (!['none', 'deny', 'chap', 'chap-mutual'].includes(v)) fail(`invalid auth-type "${v}" for auth-group "${name}"`);
          } else if (e.value === 'chap') str(), str();
          else if (e.value === 'chap-mutual') for (let k = 0; k < 4; k++) str();
          else if (e.value === 'initiator-name' || e.value === 'initiator-portal') str();
          else {
            i--;
            syntax();
          }
          accept(';');
        }
        break;
      }
      case 'portal-group': {
        const name = str();
        if (name === 'default' && !defaultPgDefined) defaultPgDefined = true;
        else if (portalGroups.has(name)) fail(`duplicated portal-group "${name}"`);
        const pg = portalGroups.get(name) ?? { assigned: false };
        portalGroups.set(name, pg);
        open();
        while (!accept('}')) {
          const e = accept('kw') ?? syntax();
          switch (e.value) {
            case 'discovery-auth-group': {
              const ag = str();
              if (pg.discovery !== undefined) fail(`discovery-auth-group for portal-group "${name}" specified more than once`);
              if (!authGroups.has(ag)) fail(`unknown discovery-auth-group "${ag}" for portal-group "${name}"`);
              pg.discovery = ag;
              break;
            }
            case 'listen':
            case 'listen-iser': {
              const addr = str();
              if (!listenOk(addr)) fail(`invalid listen address ${addr}`);
              break;
            }
            case 'discovery-filter':
            case 'offload':
            case 'redirect':
              str();
              break;
            case 'foreign':
              break;
            case 'option':
              str();
              str();
              break;
            case 'tag':
              numeric();
              break;
            case 'dscp': {
              if (peek().kind === 'kw' && DSCP_NAMES.has(peek().value)) i++;
              else if (numeric() >= 0x40) yyerror(toks[i - 1], 'invalid dscp value');
              break;
            }
            case 'pcp':
              if (numeric() > 7) yyerror(toks[i - 1], 'invalid pcp value');
              break;
            default:
              i--;
              syntax();
          }
          accept(';');
        }
        break;
      }
      case 'lun': {
        const name = str();
        if (namedLuns.has(name)) fail(`duplicated lun "${name}"`);
        namedLuns.add(name);
        lunBlock(name);
        break;
      }
      case 'target': {
        const raw = str();
        if (raw.length >= MAX_NAME_LEN) {
          warnings.push(`overlong name for target "${raw}"; max length allowed by iSCSI specification is ${MAX_NAME_LEN} characters`);
          fail(`target name "${raw}" is invalid`);
        }
        // RFC 3722: ctld lower-cases the name and finds targets without regard to case
        const name = raw.toLowerCase();
        if (targets.some((t) => t.name === name)) fail(`duplicated target "${raw}"`);
        if (!/^(iqn|eui|naa)\./i.test(raw)) warnings.push(`invalid target name "${raw}"; should start with either "iqn.", "eui.", or "naa."`);
        const t: Target = { name, portalGroups: [], luns: [] };
        targets.push(t);
        targetBlock(t);
        break;
      }
      default:
        i--;
        syntax();
    }
    accept(';');
  }

  // conf_verify: a target without a portal-group gets "default"; one without LUNs is only logged
  for (const t of targets) {
    if (!t.portalGroups.length) {
      t.portalGroups.push('default');
      portalGroups.get('default')!.assigned = true;
    }
    if (!t.luns.length) warnings.push(`no LUNs defined for target "${t.name}"`);
  }
  for (const [name, pg] of portalGroups) if (name !== 'default' && !pg.assigned) warnings.push(`portal-group "${name}" not assigned to any target`);
  return {
    portalGroups: [...portalGroups.keys()].filter((n) => n !== 'default' || defaultPgDefined),
    targets: targets.map((t) => ({ name: t.name, portalGroups: t.portalGroups, luns: t.luns })),
    warnings,
  };
}

/** What `ctld -t` prints when it refuses the text (`ctld: ` lines), or null when it accepts it. */
export function ctldRejection(text: string): string | null {
  try {
    checkCtlConf(text);
    return null;
  } catch (e) {
    if (!(e instanceof CtlConfError)) throw e;
    return `${e.message ? `ctld: ${e.message}\n` : ''}ctld: configuration error; exiting\n`;
  }
}
