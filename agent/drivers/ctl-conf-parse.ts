import type { IscsiConfig } from '#shared/agent-api/task-kinds';
import { checkCtlConf, tokenize } from './ctl-conf-check.ts';

/**
 * A ctl.conf(5) read into statements, so that a host's existing file can be carried into the node's iSCSI
 * configuration model (what `iscsi.apply-config` renders) instead of being replaced by it.
 *
 * ctld's grammar (usr.sbin/ctld/parse.y) is statement-shaped throughout: every statement starts with a keyword
 * token (token.l), takes string arguments — quoted `"…"` or bare words that are not keywords — and some open a
 * `{ … }` block of statements; `;` may end any statement. The only keyword that is an argument is a DSCP name
 * after `dscp` (parse.y `portal_group_dscp`). The arity of each statement is parse.y's, checked first by
 * {@link checkCtlConf} (the same reading ctld does), so a text ctld refuses is refused here with ctld's message.
 */
export interface CtlStatement {
  keyword: string;
  args: string[];
  /** the statements of its `{ … }` block, when it has one */
  block?: CtlStatement[];
}

/** Reads a ctl.conf ctld accepts; throws ctld's refusal (CtlConfError) otherwise. */
export function parseCtlConf(text: string): CtlStatement[] {
  checkCtlConf(text);
  const toks = tokenize(text);
  let i = 0;
  const statements = (inBlock: boolean): CtlStatement[] => {
    const out: CtlStatement[] = [];
    for (;;) {
      const t = toks[i];
      if (t.kind === 'eof' || (inBlock && t.kind === '}')) return out;
      if (t.kind === ';') {
        i++;
        continue;
      }
      // checkCtlConf accepted the text, so a statement starts with a keyword here
      if (t.kind !== 'kw') throw new Error(`ctl.conf line ${t.line}: '${t.text}' where a keyword was expected`);
      i++;
      const s: CtlStatement = { keyword: t.value, args: [] };
      while (toks[i].kind === 'str' || (s.keyword === 'dscp' && toks[i].kind === 'kw' && !s.args.length)) s.args.push(toks[i++].value);
      if (toks[i].kind === '{') {
        i++;
        s.block = statements(true);
        i++; // the closing brace
      }
      out.push(s);
    }
  };
  return statements(false);
}

/**
 * ctl.conf text for statements: TAB-indented blocks, every argument quoted (a quoted string is never read as a
 * keyword, token.l). Reads back to the same statements.
 */
export function printCtlConf(statements: CtlStatement[], depth = 0): string {
  const pad = '\t'.repeat(depth);
  return statements
    .map((s) => {
      const head = [s.keyword, ...s.args.map((a) => (s.keyword === 'dscp' ? a : `"${a}"`))].join(' ');
      return s.block ? `${pad}${head} {\n${printCtlConf(s.block, depth + 1)}${pad}}\n` : `${pad}${head}\n`;
    })
    .join('');
}

/** ctld's default pidfile (ctld.h DEFAULT_PIDFILE), which the rendered file names */
const DEFAULT_PIDFILE = '/var/run/ctld.pid';
const ZVOL = '/dev/zvol/';

export type ModelReading = { config: IscsiConfig } | { unfit: string };

/**
 * The configuration model of a parsed ctl.conf, when the model holds all of it — so that rendering the model
 * (renderCtlConf) gives ctld the same configuration. ctld's defaults are made explicit as it applies them
 * (ctld.c conf_verify): a target without auth-group or portal-group gets `default`, a portal group without
 * discovery-auth-group gets `default`. Anything the model has no place for (auth-group blocks, options, named
 * LUNs, a LUN not on a zvol, iSNS, …) is named in `unfit`: rendering would drop it.
 */
export function ctlConfModel(statements: CtlStatement[]): ModelReading {
  const config: IscsiConfig = { portalGroups: [], targets: [] };
  const unfit = (what: string): ModelReading => ({ unfit: what });
  for (const s of statements) {
    if (s.keyword === 'pidfile') {
      if (s.args[0] !== DEFAULT_PIDFILE) return unfit(`pidfile ${s.args[0]}`);
    } else if (s.keyword === 'portal-group') {
      const pg = { name: s.args[0], discoveryAuthGroup: 'default', listen: [] as string[] };
      for (const e of s.block ?? []) {
        if (e.keyword === 'discovery-auth-group') pg.discoveryAuthGroup = e.args[0];
        else if (e.keyword === 'listen') pg.listen.push(e.args[0]);
        else return unfit(`${e.keyword} in portal-group "${pg.name}"`);
      }
      config.portalGroups.push(pg);
    } else if (s.keyword === 'target') {
      const t: IscsiConfig['targets'][number] = { name: s.args[0], alias: '', authGroup: 'default', portalGroup: '', luns: [] };
      for (const e of s.block ?? []) {
        if (e.keyword === 'alias') t.alias = e.args[0];
        else if (e.keyword === 'auth-group') t.authGroup = e.args[0];
        else if (e.keyword === 'portal-group' && e.args.length === 1 && !t.portalGroup) t.portalGroup = e.args[0];
        else if (e.keyword === 'lun' && e.block) {
          const paths = e.block.filter((l) => l.keyword === 'path');
          const path = paths[0]?.args[0] ?? '';
          if (e.block.length !== 1 || !path.startsWith(ZVOL)) return unfit(`lun ${e.args[0]} of target "${t.name}" (only a path on a zvol fits)`);
          t.luns.push({ number: Number(e.args[0]), zvol: path.slice(ZVOL.length) });
        } else return unfit(`${e.keyword} ${e.args.join(' ')} in target "${t.name}"`.replace(/ +in/, ' in'));
      }
      t.portalGroup ||= 'default';
      config.targets.push(t);
    } else return unfit(`${s.keyword} ${s.args[0] ?? ''}`.trim());
  }
  return { config };
}
