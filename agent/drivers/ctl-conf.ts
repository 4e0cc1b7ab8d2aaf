import type { IscsiConfig } from '#shared/agent-api/task-kinds';

/**
 * ctl.conf(5) text for the node's iSCSI configuration, in the layout of the man page's examples (TAB indentation,
 * one block per portal group and target, `lun N { path /dev/zvol/<zvol> }`). A host that has no /etc/ctl.conf gets
 * the whole file; one that has one keeps it, and only these blocks are added to it (./ctl-conf-merge.ts).
 *
 * Every name and path is written in double quotes: ctld's lexer (token.l) reads a bare word that equals one of
 * its keywords as that keyword (`port`, `size`, `tag`, `target`, `be`, `cs0` …), so a portal group named `port`
 * would be a syntax error, while `"…"` is always a string. The names never contain `"` (the seed's patterns) and
 * are never empty, which `"[^"]+"` needs. No auth-group blocks are written: the inputs allow only ctld's built-in
 * groups `default`, `no-authentication` and `no-access`.
 */
export const CTL_CONF = '/etc/ctl.conf';

type PortalGroup = IscsiConfig['portalGroups'][number];
type Target = IscsiConfig['targets'][number];
type Lun = Target['luns'][number];

const q = (s: string) => `"${s}"`;

export const lunPath = (l: Lun) => `/dev/zvol/${l.zvol}`;
export const renderLun = (l: Lun) => `\tlun ${l.number} {\n\t\tpath ${q(lunPath(l))}\n\t}\n`;
export const renderListen = (address: string) => `\tlisten ${q(address)}\n`;

export function renderPortalGroup(g: PortalGroup): string {
  return `portal-group ${q(g.name)} {\n\tdiscovery-auth-group ${q(g.discoveryAuthGroup)}\n${g.listen.map(renderListen).join('')}}\n`;
}

export function renderTarget(t: Target): string {
  const alias = t.alias ? `\talias ${q(t.alias)}\n` : '';
  return `target ${q(t.name)} {\n${alias}\tauth-group ${q(t.authGroup)}\n\tportal-group ${q(t.portalGroup)}\n${t.luns.map(renderLun).join('')}}\n`;
}

/** The whole file, for a host that has none. */
export function renderCtlConf(config: IscsiConfig): string {
  const blocks = [...config.portalGroups.map(renderPortalGroup), ...config.targets.map(renderTarget)];
  return ['# written by hostmgr: it adds its portal groups, targets and LUNs here and keeps everything else\n', 'pidfile\t/var/run/ctld.pid\n', ...blocks].join(
    '\n',
  );
}
