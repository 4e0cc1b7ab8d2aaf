import type { IscsiConfig } from '#shared/agent-api/task-kinds';
import { CTL_CONF, lunPath, renderCtlConf, renderListen, renderLun, renderPortalGroup, renderTarget } from './ctl-conf.ts';

/**
 * The node's iSCSI configuration merged into the host's own /etc/ctl.conf: every statement hostmgr does not manage
 * stays byte for byte, and only its own are added to or changed. On a reload ctld removes every LUN no longer in
 * the file (ctld.8; ctld.c conf_apply), so replacing the file would take away the host's own targets, auth-groups,
 * LUN options, NVMe controllers … and disconnect their initiators.
 *
 * hostmgr's statements are the `portal-group` and `target` blocks whose names its configuration holds (target names
 * without regard to case, as ctld's target_find compares them). Into one already in the file it only inserts what
 * is missing (a LUN, a listen address) before the block's closing brace; new blocks go at the end of the file,
 * portal groups before targets (parse.y looks a target's portal-group up when it reads it). Where that is not safe
 * the merge refuses, naming the statement, and the file is left as it is: a block of that name that says something
 * else (another alias, auth-group, portal-group or discovery-auth-group; a LUN number used for another path), or a
 * zvol another statement of the file already exports.
 *
 * The file is read by structure only — words, `"…"` strings, `{ }` blocks, `;`, `#` comments (token.l) — with no list
 * of keywords: a statement this agent does not know (15.0's `transport-group`, `controller`, `namespace`, or a later
 * one) is not hostmgr's and is kept, never a syntax error. A statement ends at `;`, at its block's closing brace, or
 * at the end of its last word's line. Whether ctld accepts the merged file is `ctld -t`'s to say (./ctld.ts).
 */
export class CtlConfConflict extends Error {}

interface Tok {
  kind: 'word' | '{' | '}' | ';';
  value: string;
  quoted: boolean;
  start: number;
  end: number;
  line: number;
  endLine: number;
}

export interface Statement {
  words: Tok[];
  block?: Statement[];
  /** offset of the block's closing brace */
  close?: number;
  start: number;
  end: number;
}

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let line = 1;
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') line++, i++;
    else if (/\s/.test(c)) i++;
    else if (c === '#') while (i < src.length && src[i] !== '\n') i++;
    else if (c === '{' || c === '}' || c === ';') out.push({ kind: c, value: c, quoted: false, start: i, end: ++i, line, endLine: line });
    else if (c === '"' && src.indexOf('"', i + 1) > i + 1) {
      const close = src.indexOf('"', i + 1);
      const value = src.slice(i + 1, close);
      const endLine = line + (value.match(/\n/g)?.length ?? 0);
      out.push({ kind: 'word', value, quoted: true, start: i, end: close + 1, line, endLine });
      line = endLine;
      i = close + 1;
    } else {
      let j = i + 1;
      if (c !== '"') while (j < src.length && !/[\s{};#"]/.test(src[j])) j++;
      out.push({ kind: 'word', value: src.slice(i, j), quoted: false, start: i, end: j, line, endLine: line });
      i = j;
    }
  }
  return out;
}

/** The file's statements, nested by block; throws when its braces do not pair. */
export function readStatements(src: string): Statement[] {
  const toks = lex(src);
  let i = 0;
  const unreadable = (t: Tok | undefined, why: string): never => {
    throw new CtlConfConflict(`${CTL_CONF} cannot be read${t ? ` at line ${t.line}` : ''}: ${why}; hostmgr leaves it as it is`);
  };
  const statements = (inBlock: boolean): Statement[] => {
    const out: Statement[] = [];
    for (;;) {
      const t = toks[i];
      if (!t) return inBlock ? unreadable(toks.at(-1), 'a block is not closed') : out;
      if (t.kind === '}') return inBlock ? out : unreadable(t, "a '}' closes no block");
      if (t.kind === ';') {
        i++;
        continue;
      }
      if (t.kind === '{') unreadable(t, "a '{' opens a block without a statement");
      const s: Statement = { words: [t], start: t.start, end: t.end };
      i++;
      while (toks[i]?.kind === 'word' && toks[i].line === s.words.at(-1)!.endLine) s.words.push(toks[i++]);
      s.end = s.words.at(-1)!.end;
      if (toks[i]?.kind === '{') {
        i++;
        s.block = statements(true);
        s.close = toks[i].start;
        s.end = toks[i++].end;
      }
      if (toks[i]?.kind === ';') s.end = toks[i++].end;
      out.push(s);
    }
  };
  return statements(false);
}

const keyword = (s: Statement) => (s.words[0].quoted ? '' : s.words[0].value);
const arg = (s: Statement, n: number) => s.words[n]?.value;
const show = (s: Statement) => s.words.map((w) => (w.quoted ? `"${w.value}"` : w.value)).join(' ');

/** Every `path` in a statement and its blocks, with the outermost statement that holds it. */
function paths(s: Statement, top: Statement, out: Array<{ path: string; top: Statement }>): void {
  if (keyword(s) === 'path' && arg(s, 1) !== undefined) out.push({ path: arg(s, 1)!, top });
  for (const e of s.block ?? []) paths(e, top, out);
}

/** Text inserted before a block's closing brace: on the brace's own line, or after a newline put before it. */
function insertion(src: string, close: number, text: string): { at: number; text: string } {
  const lineStart = src.lastIndexOf('\n', close - 1) + 1;
  return src.slice(lineStart, close).trim() === '' ? { at: lineStart, text } : { at: close, text: `\n${text}` };
}

/** The file with the node's configuration merged in; the whole rendered file when the host has none. */
export function mergeCtlConf(live: string | null, config: IscsiConfig): string {
  if (live === null) return renderCtlConf(config);
  const top = readStatements(live);
  const edits: Array<{ at: number; text: string }> = [];
  const conflict = (s: Statement, why: string): never => {
    throw new CtlConfConflict(`${CTL_CONF} line ${lineOf(live, s.start)}: ${show(s)} ${why}; hostmgr changes nothing of it, so the file is left as it is`);
  };
  const find = (kw: string, name: string, fold: boolean) => {
    const same = (v: string | undefined) => v !== undefined && (fold ? v.toLowerCase() === name.toLowerCase() : v === name);
    const found = top.filter((s) => keyword(s) === kw && same(arg(s, 1)));
    if (found.length > 1) conflict(found[1], `is defined twice`);
    if (found[0] && !found[0].block) conflict(found[0], 'has no block');
    return found[0];
  };

  const ours = new Set<Statement>();
  const newGroups: string[] = [];
  for (const g of config.portalGroups) {
    const s = find('portal-group', g.name, false);
    if (!s) {
      newGroups.push(renderPortalGroup(g));
      continue;
    }
    ours.add(s);
    const entries = s.block!;
    const discovery = entries.find((e) => keyword(e) === 'discovery-auth-group');
    // conf_verify gives a portal group without one the "default" auth-group
    const dag = discovery ? arg(discovery, 1) : 'default';
    if (dag !== g.discoveryAuthGroup) conflict(s, `has discovery-auth-group ${dag}, hostmgr's portal group has ${g.discoveryAuthGroup}`);
    const listening = new Set(entries.filter((e) => keyword(e) === 'listen').map((e) => arg(e, 1)));
    const missing = g.listen.filter((l) => !listening.has(l));
    if (missing.length) edits.push(insertion(live, s.close!, missing.map(renderListen).join('')));
  }

  const newTargets: string[] = [];
  const targetBlocks = new Map<string, Statement>();
  for (const t of config.targets) {
    const s = find('target', t.name, true);
    if (!s) {
      newTargets.push(renderTarget(t));
      continue;
    }
    ours.add(s);
    targetBlocks.set(t.name, s);
    const entries = s.block!;
    const one = (kw: string) => entries.filter((e) => keyword(e) === kw);
    const alias = one('alias')[0];
    if ((alias ? arg(alias, 1) : '') !== t.alias) conflict(s, `has alias ${alias ? show(alias) : '(none)'}, hostmgr's target has "${t.alias}"`);
    const ag = one('auth-group')[0];
    // explicit chap/initiator lines make the target its own auth-group, which hostmgr's model has no place for
    const explicit = entries.find((e) => ['auth-type', 'chap', 'chap-mutual', 'initiator-name', 'initiator-portal'].includes(keyword(e)));
    if (explicit) conflict(s, `sets ${keyword(explicit)} itself, hostmgr's target uses auth-group ${t.authGroup}`);
    if ((ag ? arg(ag, 1) : 'default') !== t.authGroup) conflict(s, `has auth-group ${ag ? arg(ag, 1) : 'default'}, hostmgr's target has ${t.authGroup}`);
    // conf_verify links a target without portal-group to "default"; one with several is more than the model holds
    const pgs = one('portal-group');
    const pg = pgs.length === 0 ? 'default' : pgs.length === 1 && pgs[0].words.length === 2 ? arg(pgs[0], 1) : null;
    if (pg !== t.portalGroup) conflict(s, `has portal-group ${pgs.map(show).join(', ') || 'default'}, hostmgr's target has ${t.portalGroup}`);
  }

  // a zvol exported twice would have two LUNs writing one device: the rest of the file must not export hostmgr's
  const elsewhere: Array<{ path: string; top: Statement }> = [];
  for (const s of top) if (!ours.has(s)) paths(s, s, elsewhere);
  for (const t of config.targets) {
    const s = targetBlocks.get(t.name);
    const fileLuns = new Map((s?.block ?? []).filter((e) => keyword(e) === 'lun').map((e) => [Number(arg(e, 1)), e]));
    const add: string[] = [];
    for (const l of t.luns) {
      const other = elsewhere.find((p) => p.path === lunPath(l));
      if (other) conflict(other.top, `already exports ${lunPath(l)}, which hostmgr would export as LUN ${l.number} of target ${t.name}`);
      const have = fileLuns.get(l.number);
      if (!have) {
        add.push(renderLun(l));
        continue;
      }
      const path = (have.block ?? []).find((e) => keyword(e) === 'path');
      if (!have.block || !path || arg(path, 1) !== lunPath(l)) conflict(have, `of target ${t.name} is not ${lunPath(l)}, which hostmgr has as LUN ${l.number}`);
    }
    if (s && add.length) edits.push(insertion(live, s.close!, add.join('')));
  }

  let out = live;
  for (const e of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + e.text + out.slice(e.at);
  const appended = [...newGroups, ...newTargets];
  if (!appended.length) return out;
  const sep = out === '' || out.endsWith('\n\n') ? '' : out.endsWith('\n') ? '\n' : '\n\n';
  return out + sep + appended.join('\n');
}

const lineOf = (src: string, offset: number) => src.slice(0, offset).split('\n').length;
