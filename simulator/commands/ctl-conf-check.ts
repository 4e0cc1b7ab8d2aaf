import { isIP } from 'node:net';

/**
 * What ctld(8) checks when it reads a ctl.conf(5) (`ctld -t`, start, reload), for the part of the grammar
 * hostmgr writes and the man page's examples use: `pidfile`, `auth-group`, `portal-group` (`listen`,
 * `discovery-auth-group`), `target` (`alias`, `auth-group`, `portal-group`, `chap`, `lun N { path … }`).
 * Messages are ctld's log_warnx texts: a syntax error names the line and the token, a `listen` address that does
 * not parse is refused, a target naming an unknown portal-group is refused, a LUN without a path is refused.
 */
export interface CtlConfSummary {
  portalGroups: string[];
  targets: Array<{ name: string; luns: Array<{ number: number; path: string }> }>;
}

type Token = { text: string; line: number };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const re = /"([^"]*)"|([{}])|([^\s{}"#]+)|(#.*)/g;
    for (let m = re.exec(raw); m; m = re.exec(raw)) {
      if (m[4] !== undefined) break;
      out.push({ text: m[1] ?? m[2] ?? m[3], line: i + 1 });
    }
  });
  return out;
}

class ConfError extends Error {}

/** A listen address as ctld's parse_addr_port takes it: an IPv4 or bracketed IPv6 literal, optionally `:port`. */
function listenOk(s: string): boolean {
  const v6 = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(s);
  if (v6) return isIP(v6[1]) === 6 && (v6[2] === undefined || Number(v6[2]) <= 65535);
  const v4 = /^([^:]+)(?::(\d{1,5}))?$/.exec(s);
  return !!v4 && isIP(v4[1]) === 4 && (v4[2] === undefined || Number(v4[2]) <= 65535);
}

/** Parses and verifies; throws the lines ctld prints (without the `ctld: ` prefix). */
export function checkCtlConf(text: string): CtlConfSummary {
  const toks = tokenize(text);
  let i = 0;
  const peek = () => toks[i];
  const syntax = (t: Token | undefined): never => {
    throw new ConfError(`error in configuration file at line ${t?.line ?? text.split('\n').length} near '${t?.text ?? ''}': syntax error`);
  };
  const next = () => toks[i++] ?? syntax(undefined);
  const expect = (s: string) => {
    const t = next();
    if (t.text !== s) syntax(t);
  };
  const value = () => {
    const t = next();
    if (t.text === '{' || t.text === '}') syntax(t);
    return t.text;
  };
  const groups = new Set<string>(['default']);
  const pending: Array<{ target: string; group: string }> = [];
  const summary: CtlConfSummary = { portalGroups: [], targets: [] };
  const block = (onStatement: (kw: Token) => void) => {
    expect('{');
    while (peek() && peek().text !== '}') onStatement(next());
    expect('}');
  };
  while (i < toks.length) {
    const kw = next();
    switch (kw.text) {
      case 'pidfile':
      case 'debug':
      case 'timeout':
      case 'maxproc':
      case 'isns-server':
        value();
        break;
      case 'auth-group':
        value();
        block((s) => {
          if (s.text === 'chap' || s.text === 'initiator-name' || s.text === 'initiator-portal' || s.text === 'auth-type') value();
          else if (s.text === 'chap-mutual') for (let k = 0; k < 4; k++) value();
          else syntax(s);
          if (s.text === 'chap') value();
        });
        break;
      case 'portal-group': {
        const name = value();
        groups.add(name);
        summary.portalGroups.push(name);
        block((s) => {
          if (s.text === 'listen' || s.text === 'listen-iser') {
            const addr = value();
            if (!listenOk(addr)) throw new ConfError(`invalid listen address ${addr}`);
          } else if (s.text === 'discovery-auth-group' || s.text === 'discovery-filter' || s.text === 'redirect' || s.text === 'tag' || s.text === 'foreign') value();
          else syntax(s);
        });
        break;
      }
      case 'target': {
        const name = value();
        const target = { name, luns: [] as Array<{ number: number; path: string }> };
        summary.targets.push(target);
        block((s) => {
          if (s.text === 'alias' || s.text === 'auth-group' || s.text === 'auth-type' || s.text === 'redirect') value();
          else if (s.text === 'chap') (value(), value());
          else if (s.text === 'portal-group') {
            pending.push({ target: name, group: value() });
            // an optional auth-group on the same line
            if (peek() && peek().line === s.line && peek().text !== '}') value();
          } else if (s.text === 'lun') {
            const n = next();
            if (!/^\d+$/.test(n.text)) syntax(n);
            let path = '';
            block((l) => {
              if (l.text === 'path') path = value();
              else if (['blocksize', 'size', 'backend', 'serial', 'device-id', 'device-type', 'ctl-lun'].includes(l.text)) value();
              else if (l.text === 'option') (value(), value());
              else syntax(l);
            });
            if (!path) throw new ConfError(`missing path for lun "${name},lun,${n.text}"`);
            target.luns.push({ number: Number(n.text), path });
          } else syntax(s);
        });
        break;
      }
      default:
        syntax(kw);
    }
  }
  for (const p of pending) if (!groups.has(p.group)) throw new ConfError(`unknown portal-group "${p.group}" for target "${p.target}"`);
  return summary;
}

/** `ctld: <line>` messages as ctld prints them before giving up, or null when the text is accepted. */
export function ctldRejection(text: string): string | null {
  try {
    checkCtlConf(text);
    return null;
  } catch (e) {
    if (!(e instanceof ConfError)) throw e;
    return `ctld: ${e.message}\nctld: configuration error; exiting\n`;
  }
}
