import { isIP } from 'node:net';

/**
 * The simulated ctld's own reading of ctl.conf(5), written from freebsd-src usr.sbin/ctld and nothing of the agent's,
 * so that a file the agent writes wrong is refused here as a host would refuse it.
 *
 * Lexer — token.l: each keyword is a rule listed before the bare-word rule `[a-zA-Z0-9.\-@_/:\[\]]+`; flex takes the
 * longest match and, on equal length, the earlier rule, so a bare word equal to a keyword IS the keyword (a portal
 * group named `port` unquoted is a syntax error). `\"[^"]+\"` is a string (no escapes, may span lines, never empty);
 * `#.*$` a comment; `;` a separator; `.` any other character a one-character string; `\n` and `\r\n` count lines.
 *
 * Grammar — parse.y (14.x: `statements: | statements statement | statements statement SEMICOLON`): top-level
 * debug/timeout/maxproc/isns-period/isns-timeout STR (expand_number), pidfile STR (once), isns-server STR,
 * `auth-group`, `portal-group`, `lun` (named, global) and `target` blocks. The 15.0 ctld (usr.sbin/ctld/ctld.cc,
 * conf.cc; parse.y calls conf.h's interface) keeps all of it and adds NVMe over Fabrics: `transport-group NAME {
 * listen tcp|discovery-tcp ADDR … }` (transport_group_start, transport_group_add_listen_tcp/_discovery_tcp),
 * `controller NAME { auth-group, auth-type, host-address, host-nqn, transport-group, namespace N { … } | namespace
 * N NAME }` (controller_start, controller_add_host_address/_host_nqn, controller_add_namespace,
 * controller_start_namespace) and `host-address`/`host-nqn` in auth-groups (auth_group_add_host_address/_host_nqn);
 * ctl.conf.5 of 15.0 lists the same. Which grammar a host reads is its profile's (`ctlConfGrammar`).
 *
 * Messages are ctld's log_warnx texts (yyerror: `error in configuration file at line N near 'TOKEN': what`);
 * callers prefix `ctld: `. Verification after parsing is conf_verify's (ctld.c): a target without portal-group gets
 * "default", one without LUNs is only logged.
 */
export type CtlGrammar = '14' | '15';

export class CtlConfRefused extends Error {}

export interface CtlReading {
  portalGroups: string[];
  targets: Array<{ name: string; portalGroups: string[]; luns: Array<{ number: number; path: string }> }>;
  /** 15.0's NVMe controllers and their namespaces (read and checked; the simulated kernel does not serve them) */
  controllers: Array<{ name: string; namespaces: Array<{ number: number; path: string }> }>;
  warnings: string[];
}

const DSCP = 'af11 af12 af13 af21 af22 af23 af31 af32 af33 af41 af42 af43 be ef cs0 cs1 cs2 cs3 cs4 cs5 cs6 cs7'.split(' ');
// token.l of stable/14 (releng/14.3), in its order
const KEYWORDS_14 = [
  ...'alias auth-group auth-type backend blocksize chap chap-mutual ctl-lun debug device-id device-type'.split(' '),
  ...'discovery-auth-group discovery-filter dscp foreign initiator-name initiator-portal isns-server isns-period'.split(' '),
  ...'isns-timeout listen listen-iser lun maxproc offload option path pcp pidfile port portal-group redirect'.split(' '),
  ...'serial size tag target timeout'.split(' '),
  ...DSCP,
];
// 15.0 adds the NVMe-oF words (conf.h's transport_group_*, controller_*, auth_group_add_host_*)
const KEYWORDS_15 = [...KEYWORDS_14, 'controller', 'host-address', 'host-nqn', 'namespace', 'transport-group'];
const keywordsOf = (g: CtlGrammar) => new Set(g === '15' ? KEYWORDS_15 : KEYWORDS_14);

/** ctld.h MAX_LUNS (LUNs per target) and the iSCSI name limit target_new checks (MAX_NAME_LEN) */
const MAX_LUNS = 1024;
const MAX_NAME_LEN = 223;

interface Tok {
  kind: 'kw' | 'str' | '{' | '}' | ';' | 'eof';
  value: string;
  text: string;
  line: number;
}

function lex(src: string, keywords: Set<string>): Tok[] {
  const out: Tok[] = [];
  const bare = /[a-zA-Z0-9.\-@_/:[\]]+/y;
  let line = 1;
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t') i++;
    else if (c === '\n') line++, i++;
    else if (c === '\r' && src[i + 1] === '\n') line++, (i += 2);
    else if (c === '#') while (i < src.length && src[i] !== '\n') i++;
    else if (c === '{' || c === '}' || c === ';') out.push({ kind: c, value: c, text: c, line }), i++;
    else {
      const close = c === '"' ? src.indexOf('"', i + 1) : -1;
      if (close > i + 1) {
        out.push({ kind: 'str', value: src.slice(i + 1, close), text: src.slice(i, close + 1), line });
        i = close + 1;
        continue;
      }
      bare.lastIndex = i;
      const m = bare.exec(src);
      const word = m ? m[0] : c; // `.`: one character
      out.push({ kind: m && keywords.has(word) ? 'kw' : 'str', value: word, text: word, line });
      i += word.length;
    }
  }
  out.push({ kind: 'eof', value: '', text: '', line });
  return out;
}

/** libutil expand_number(3): strtoumax(base 0), then one unit letter of k m g t p e (any case), then an optional b */
function expandNumber(s: string): number | null {
  const m = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([kKmMgGtTpPeE]?)[bB]?$/.exec(s);
  if (!m) return null;
  const digits = m[1];
  const n = /^0[xX]/.test(digits) ? Number.parseInt(digits.slice(2), 16) : digits.length > 1 && digits[0] === '0' ? Number.parseInt(digits, 8) : Number(digits);
  return n * 1024 ** (m[2] ? ' kmgtpe'.indexOf(m[2].toLowerCase()) : 0);
}

/** ctld.c parse_addr_port with getaddrinfo(AI_NUMERICHOST): `[v6]:port`, `v4:port`, bare addresses; port 3260 by default */
function addressOk(s: string): boolean {
  let host = s;
  let port: string | undefined;
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end < 0) return false;
    host = s.slice(1, end);
    const rest = s.slice(end + 1);
    if (rest && !rest.startsWith(':')) return false;
    port = rest ? rest.slice(1) : undefined;
  } else if (s.split(':').length === 2) [host, port] = s.split(':');
  if (port !== undefined && !(/^\d+$/.test(port) ? Number(port) <= 65535 : port === 'iscsi-target')) return false;
  return isIP(host) !== 0;
}

/** Reads and verifies a ctl.conf as the host's ctld does; throws {@link CtlConfRefused} with its message. */
export function readCtlConf(src: string, grammar: CtlGrammar): CtlReading {
  const toks = lex(src, keywordsOf(grammar));
  const nvme = grammar === '15';
  let i = 0;
  const warnings: string[] = [];
  const refuse = (msg: string): never => {
    throw new CtlConfRefused(msg);
  };
  const near = (t: Tok, what: string): never => refuse(`error in configuration file at line ${t.line} near '${t.text}': ${what}`);
  const syntax = (): never => near(toks[i], 'syntax error');
  const take = (kind: Tok['kind']) => (toks[i].kind === kind ? toks[i++] : null);
  const str = () => take('str')?.value ?? syntax();
  const open = () => take('{') ?? syntax();
  const num = () => {
    const t = toks[i];
    str();
    return expandNumber(t.value) ?? near(t, 'invalid numeric value');
  };
  /** the block's statements: `entries: | entries entry | entries entry SEMICOLON` */
  const block = (entry: (kw: string) => boolean) => {
    open();
    while (!take('}')) {
      const kw = take('kw') ?? syntax();
      if (!entry(kw.value)) {
        i--;
        syntax();
      }
      take(';');
    }
  };

  // conf_new_from_file: the built-in auth-groups and the "default" portal-group exist before the file is read
  const authGroups = new Set(['default', 'no-authentication', 'no-access']);
  const portalGroups = new Map<string, boolean>([['default', false]]); // name → assigned to a target
  const transportGroups = new Set<string>(['default']);
  const defined = { ag: false, pg: false, pidfile: false };
  const namedLuns = new Set<string>();
  const targets: CtlReading['targets'] = [];
  const controllers: CtlReading['controllers'] = [];

  const authType = (owner: string) => {
    const v = str();
    if (!['none', 'deny', 'chap', 'chap-mutual'].includes(v)) refuse(`invalid auth-type "${v}" for ${owner}`);
  };

  /** lun_entries: backend, blocksize, ctl-lun, device-id, device-type, option, path, serial, size (each once) */
  const lunEntries = (name: string): string | undefined => {
    let path: string | undefined;
    let backend: string | undefined;
    let size = 0;
    const seen = new Set<string>();
    const once = (what: string) => {
      if (seen.has(what)) refuse(`${what} for lun "${name}" specified more than once`);
      seen.add(what);
    };
    block((kw) => {
      if (kw === 'backend') once('backend'), (backend = str());
      else if (kw === 'blocksize') num(), once('blocksize');
      else if (kw === 'ctl-lun') num(), once('ctl_lun');
      else if (kw === 'device-id') str(), once('device_id');
      else if (kw === 'device-type') {
        const t = toks[i];
        const v = str();
        if (!/^(disk|direct|processor|cd|cdrom|dvd|dvdrom)$/i.test(v) && (expandNumber(v) ?? 16) > 15) near(t, 'invalid numeric value');
      } else if (kw === 'option') str(), str();
      else if (kw === 'path') once('path'), (path = str());
      else if (kw === 'serial') str(), once('serial');
      else if (kw === 'size') (size = num()), once('size');
      else return false;
      return true;
    });
    // conf_verify_lun: the block backend (the default) needs a path; ramdisk a size and no path
    if ((backend ?? 'block') === 'block' && path === undefined) refuse(`missing path for lun "${name}"`);
    if (backend === 'ramdisk' && size === 0) refuse(`missing size for ramdisk-backed lun "${name}"`);
    if (backend === 'ramdisk' && path !== undefined) refuse(`path must not be specified for ramdisk-backed lun "${name}"`);
    return path;
  };

  /** target_lun / target_lun_ref (and 15.0's namespace twins): `lun N { … }` or `lun N NAME` */
  const numbered = (owner: string, sep: string, into: Array<{ number: number; path: string }>) => {
    const numTok = toks[i];
    str();
    const n = expandNumber(numTok.value) ?? near(numTok, 'invalid numeric value');
    if (n >= MAX_LUNS) near(toks[i], 'LU number is too big');
    if (toks[i].kind === 'str') {
      const ref = str();
      if (!namedLuns.has(ref)) refuse(''); // lun_find fails without a message of its own
      return;
    }
    into.push({ number: n, path: lunEntries(`${owner},${sep},${n}`) ?? '' });
  };

  const authOwner = () => {
    let group: string | undefined;
    let explicit = false;
    return {
      group: (what: string, name: string) => {
        if (group !== undefined) refuse(`auth-group for ${what} specified more than once`);
        if (explicit) refuse(`cannot use both auth-group and explicit authorisations for ${what}`);
        if (!authGroups.has(name)) refuse(`unknown auth-group "${name}" for ${what}`);
        group = name;
      },
      explicit: (what: string, kind: string) => {
        if (group !== undefined) refuse(`cannot use both auth-group and ${kind} for ${what}`);
        explicit = true;
      },
    };
  };

  const target = () => {
    const raw = str();
    if (raw.length >= MAX_NAME_LEN) refuse(`target name "${raw}" is invalid`);
    const name = raw.toLowerCase(); // RFC 3722: target names compare without regard to case (target_new)
    if (targets.some((t) => t.name === name)) refuse(`duplicated target "${raw}"`);
    if (!/^(iqn|eui|naa)\./i.test(raw)) warnings.push(`invalid target name "${raw}"; should start with either "iqn.", "eui.", or "naa."`);
    const t: CtlReading['targets'][number] = { name, portalGroups: [], luns: [] };
    targets.push(t);
    const who = `target "${name}"`;
    const auth = authOwner();
    let alias = false;
    block((kw) => {
      if (kw === 'alias') {
        if (alias) refuse(`alias for ${who} specified more than once`);
        alias = true;
        str();
      } else if (kw === 'auth-group') auth.group(who, str());
      else if (kw === 'auth-type') auth.explicit(who, 'auth-type'), authType(who);
      else if (kw === 'chap') str(), str(), auth.explicit(who, 'chap');
      else if (kw === 'chap-mutual') str(), str(), str(), str(), auth.explicit(who, 'chap-mutual');
      else if (kw === 'initiator-name' || kw === 'initiator-portal') str(), auth.explicit(who, kw);
      else if (kw === 'portal-group') {
        // target_portal_group: `portal-group NAME [AUTH-GROUP]`
        const pg = str();
        const ag = toks[i].kind === 'str' ? str() : undefined;
        if (!portalGroups.has(pg)) refuse(`unknown portal-group "${pg}" for ${who}`);
        if (ag !== undefined && !authGroups.has(ag)) refuse(`unknown auth-group "${ag}" for ${who}`);
        if (t.portalGroups.includes(pg)) refuse(`can't link portal-group "${pg}" to ${who}`);
        portalGroups.set(pg, true);
        t.portalGroups.push(pg);
      } else if (kw === 'port' || kw === 'redirect') str();
      else if (kw === 'lun') numbered(name, 'lun', t.luns);
      else return false;
      return true;
    });
  };

  const controller = () => {
    const name = str();
    if (controllers.some((c) => c.name === name)) refuse(`duplicated controller "${name}"`);
    const c: CtlReading['controllers'][number] = { name, namespaces: [] };
    controllers.push(c);
    const who = `controller "${name}"`;
    const auth = authOwner();
    block((kw) => {
      if (kw === 'auth-group') auth.group(who, str());
      else if (kw === 'auth-type') auth.explicit(who, 'auth-type'), authType(who);
      else if (kw === 'host-address' || kw === 'host-nqn') str(), auth.explicit(who, kw);
      else if (kw === 'transport-group') {
        const tg = str();
        if (toks[i].kind === 'str') {
          const ag = str();
          if (!authGroups.has(ag)) refuse(`unknown auth-group "${ag}" for ${who}`);
        }
        if (!transportGroups.has(tg)) refuse(`unknown transport-group "${tg}" for ${who}`);
      } else if (kw === 'namespace') numbered(name, 'ns', c.namespaces);
      else return false;
      return true;
    });
  };

  const portalGroup = (kind: 'portal-group' | 'transport-group') => {
    const name = str();
    const names = kind === 'portal-group' ? portalGroups : transportGroups;
    // "Make it possible to redefine default portal-group. but only once." (portal_group_name)
    if (kind === 'portal-group' && name === 'default' && !defined.pg) defined.pg = true;
    else if (names.has(name) && !(kind === 'transport-group' && name === 'default')) refuse(`duplicated ${kind} "${name}"`);
    if (kind === 'portal-group') portalGroups.set(name, portalGroups.get(name) ?? false);
    else transportGroups.add(name);
    let discovery = false;
    block((kw) => {
      if (kw === 'discovery-auth-group') {
        const ag = str();
        if (discovery) refuse(`discovery-auth-group for ${kind} "${name}" specified more than once`);
        if (!authGroups.has(ag)) refuse(`unknown discovery-auth-group "${ag}" for ${kind} "${name}"`);
        discovery = true;
      } else if (kw === 'listen' && kind === 'transport-group') {
        // `listen tcp ADDR` / `listen discovery-tcp ADDR` (transport_group_add_listen_tcp / _discovery_tcp)
        const transport = str();
        const addr = str();
        if (transport !== 'tcp' && transport !== 'discovery-tcp') refuse(`invalid transport "${transport}" for ${kind} "${name}"`);
        if (!addressOk(addr)) refuse(`invalid listen address ${addr}`);
      } else if (kw === 'listen' || kw === 'listen-iser') {
        const addr = str();
        if (!addressOk(addr)) refuse(`invalid listen address ${addr}`);
      } else if (kw === 'discovery-filter' || kw === 'offload' || kw === 'redirect') str();
      else if (kw === 'foreign') return true;
      else if (kw === 'option') str(), str();
      else if (kw === 'tag') num();
      else if (kw === 'dscp') {
        if (toks[i].kind === 'kw' && DSCP.includes(toks[i].value)) i++;
        else if (num() >= 0x40) near(toks[i - 1], 'invalid dscp value');
      } else if (kw === 'pcp') {
        if (num() > 7) near(toks[i - 1], 'invalid pcp value');
      } else return false;
      return true;
    });
  };

  const authGroup = () => {
    const name = str();
    // auth_group_name: "Make it possible to redefine default auth-group. but only once."
    if (name === 'default' && !defined.ag) defined.ag = true;
    else if (authGroups.has(name)) refuse(`duplicated auth-group "${name}"`);
    authGroups.add(name);
    const who = `auth-group "${name}"`;
    block((kw) => {
      if (kw === 'auth-type') authType(who);
      else if (kw === 'chap') str(), str();
      else if (kw === 'chap-mutual') str(), str(), str(), str();
      else if (kw === 'initiator-name' || kw === 'initiator-portal') str();
      else if (nvme && (kw === 'host-address' || kw === 'host-nqn')) str();
      else return false;
      return true;
    });
  };

  while (toks[i].kind !== 'eof') {
    const kw = (take('kw') ?? syntax()).value;
    if (['debug', 'timeout', 'maxproc', 'isns-period', 'isns-timeout'].includes(kw)) num();
    else if (kw === 'pidfile') {
      str();
      if (defined.pidfile) refuse('pidfile specified more than once');
      defined.pidfile = true;
    } else if (kw === 'isns-server') str();
    else if (kw === 'auth-group') authGroup();
    else if (kw === 'portal-group') portalGroup('portal-group');
    else if (kw === 'transport-group' && nvme) portalGroup('transport-group');
    else if (kw === 'lun') {
      const name = str();
      if (namedLuns.has(name)) refuse(`duplicated lun "${name}"`);
      namedLuns.add(name);
      lunEntries(name);
    } else if (kw === 'target') target();
    else if (kw === 'controller' && nvme) controller();
    else {
      i--;
      syntax();
    }
    take(';');
  }

  // conf_verify
  for (const t of targets) {
    if (!t.portalGroups.length) {
      t.portalGroups.push('default');
      portalGroups.set('default', true);
    }
    if (!t.luns.length) warnings.push(`no LUNs defined for target "${t.name}"`);
  }
  for (const [name, assigned] of portalGroups) if (name !== 'default' && !assigned) warnings.push(`portal-group "${name}" not assigned to any target`);
  return {
    portalGroups: [...portalGroups.keys()].filter((n) => n !== 'default' || defined.pg),
    targets,
    controllers,
    warnings,
  };
}

/** What `ctld` prints when it refuses the text, or null when it accepts it. */
export function ctlConfRefusal(text: string, grammar: CtlGrammar): string | null {
  try {
    readCtlConf(text, grammar);
    return null;
  } catch (e) {
    if (!(e instanceof CtlConfRefused)) throw e;
    return `${e.message ? `ctld: ${e.message}\n` : ''}ctld: configuration error; exiting\n`;
  }
}
