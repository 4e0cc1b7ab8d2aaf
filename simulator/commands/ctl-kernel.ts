import type { SimHost } from '#shared/seed/host/schema';
import { readFile } from '../file-tree.ts';
import { profileOf } from '../profiles.ts';
import { ctlConfRefusal, readCtlConf } from './ctl-conf-reader.ts';

/**
 * The kernel's CTL as ctld leaves it (usr.sbin/ctld/ctld.c conf_apply, kernel.c kernel_lun_add/kernel_port_add):
 * one block-backend LUN per `lun` of a target (the kernel opens its path; a path that is not a zvol of the host
 * fails with ctl_backend_block's "error opening <path>: 2" and ctld logs `failed to add lun "<name>"`), LUNs no
 * longer configured removed, ids kept by ctld name; one iSCSI port per target and portal group, whose tag is
 * 0x100 + the group's place (ctld.c: `last_portal_group_tag = 0xff`, then `++` per group, "default" first) and
 * whose designator is `<target>,t,0x<tag>` (cfiscsi). `ctladm` (./ctladm.ts) prints it.
 */
export type CtlKernel = NonNullable<NonNullable<SimHost['ctld']>['kernel']>;

const BLOCKSIZE = 512;

function zvolBlocks(state: SimHost, path: string): number | null {
  if (!path.startsWith('/dev/zvol/')) return null;
  const ds = state.datasets.find((d) => d.type === 'volume' && d.name === path.slice('/dev/zvol/'.length));
  return ds ? Math.floor((ds.volsizeBytes ?? ds.usedBytes) / BLOCKSIZE) : null;
}

/** Applies an accepted configuration to the kernel; returns ctld's log lines for what failed (empty: all applied). */
export function applyToKernel(state: SimHost, text: string): string[] {
  const conf = readCtlConf(text, profileOf(state).ctlConfGrammar);
  const before = state.ctld?.kernel ?? { luns: [], ports: [] };
  const errors: string[] = [];
  const luns: CtlKernel['luns'] = [];
  const idOf = new Map(before.luns.map((l) => [l.name, l.id]));
  const used = new Set<number>();
  const wanted = conf.targets.flatMap((t) => t.luns.map((l) => ({ name: `${t.name},lun,${l.number}`, path: l.path })));
  for (const w of wanted) {
    const kept = idOf.get(w.name);
    if (kept !== undefined) used.add(kept);
  }
  for (const w of wanted) {
    const blocks = zvolBlocks(state, w.path);
    if (blocks === null) {
      errors.push(`error returned from LUN creation request: error opening ${w.path}: 2`, `failed to add lun "${w.name}"`);
      continue;
    }
    let id = idOf.get(w.name);
    if (id === undefined) {
      id = 0;
      while (used.has(id)) id++;
      used.add(id);
    }
    luns.push({ id, name: w.name, path: w.path, blocks });
  }
  const groups = ['default', ...conf.portalGroups.filter((g) => g !== 'default')];
  const ports: CtlKernel['ports'] = [];
  conf.targets.forEach((t, ti) => {
    for (const pg of t.portalGroups) {
      const map = t.luns.flatMap((l) => {
        const lun = luns.find((k) => k.name === `${t.name},lun,${l.number}`);
        return lun ? [[l.number, lun.id]] : [];
      });
      ports.push({ target: t.name, tag: 0x100 + groups.indexOf(pg), targetId: ti + 1, luns: map });
    }
  });
  (state.ctld ??= { running: false }).kernel = { luns: luns.sort((a, b) => a.id - b.id), ports };
  return errors;
}

/** The kernel's CTL; a seeded running ctld without one serves what it loaded (else /etc/ctl.conf, which it read). */
export function ctlKernel(state: SimHost): CtlKernel {
  const s = state.ctld;
  if (!s) return { luns: [], ports: [] };
  const text = s.loaded ?? readFile(state, '/etc/ctl.conf');
  if (!s.kernel && s.running && text !== null && ctlConfRefusal(text, profileOf(state).ctlConfGrammar) === null) applyToKernel(state, text);
  return s.kernel ?? { luns: [], ports: [] };
}
