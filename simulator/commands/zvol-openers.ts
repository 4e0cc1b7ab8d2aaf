import type { SimHost } from '#shared/seed/host/schema';
import { runningVms } from './virsh.ts';

/** A disk of a libvirt domain backed by a device node: `<source dev='…'/>` (type='block') or `file='…'`. */
const DISK_SOURCE = /<source\b[^>]*?\b(?:dev|file)='(\/dev\/zvol\/[^']+)'/g;

/**
 * Who has the zvol open in the kernel, or null. An open zvol's objset is owned by its minor (zvol_first_open:
 * dmu_objset_own, a long hold), and dsl_destroy_head_check_impl refuses a dataset with long holds, EBUSY, which
 * libzfs prints as "dataset is busy". Two openers here: a LUN CTL serves, and a running bhyve, which opens each
 * disk's device when it starts (blockif_open) and keeps it until it exits.
 */
export function zvolOpener(state: SimHost, zvol: string): string | null {
  const dev = `/dev/zvol/${zvol}`;
  if (state.ctld?.kernel?.luns.some((l) => l.path === dev)) return 'ctl';
  const vm = runningVms(state).find((v) => [...(v.xml ?? '').matchAll(DISK_SOURCE)].some((m) => m[1] === dev));
  return vm ? `bhyve ${vm.rid}` : null;
}
