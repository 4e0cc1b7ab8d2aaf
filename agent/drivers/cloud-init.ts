import { runChecked, type Executor } from '../executors/executor.ts';
import type { CloudInitOptions } from '#shared/agent-api/inventory';
import { installPrivateFile } from './certificate-files.ts';
import { makeDir, removeTrees } from './host-files.ts';
import { vmPaths } from './vm-runtime.ts';

/**
 * The cloud-init NoCloud seed of a VM: user-data, meta-data and (optionally) network-config in a
 * directory, made into an ISO 9660 image labelled `cidata` with FreeBSD's makefs, then attached to the domain
 * as a cdrom. makefs stores the label as `CIDATA`: a cd9660 volume label is made of d-characters and
 * lowercase ones are uppercased (usr.sbin/makefs/cd9660.c cd9660_arguments_set_string); cloud-init's NoCloud
 * source and FreeBSD's nuageinit accept either case. The seed often holds password hashes and keys: every file
 * of it, and the image, is mode 0600.
 */
const SEED_FILES = { data: 'user-data', metadata: 'meta-data', networkConfig: 'network-config' } as const;

export const isCloudInitOn = (c: CloudInitOptions) => c.data !== '' && c.metadata !== '';

/** `makefs -t cd9660` argv for the seed (Rock Ridge keeps the file names as they are). */
export const makefsArgv = (iso: string, dir: string) => ['makefs', '-t', 'cd9660', '-o', 'rockridge', '-o', 'label=cidata', iso, dir];

/** Writes the seed directory and builds the ISO; returns the ISO's path. */
export async function buildSeedIso(exec: Executor, rid: number, c: CloudInitOptions): Promise<string> {
  const p = vmPaths(rid);
  await removeTrees(exec, [p.cloudInitDir, p.cloudInitIso]);
  await makeDir(exec, p.cloudInitDir);
  for (const key of ['data', 'metadata', 'networkConfig'] as const) {
    if (c[key] !== '') await installPrivateFile(exec, `${p.cloudInitDir}/${SEED_FILES[key]}`, c[key]);
  }
  // makefs creates the image with the umask's mode; an empty 0600 file first keeps it private throughout
  await installPrivateFile(exec, p.cloudInitIso, '');
  await runChecked(exec, makefsArgv(p.cloudInitIso, p.cloudInitDir));
  await runChecked(exec, ['chmod', '600', p.cloudInitIso]);
  return p.cloudInitIso;
}

export async function removeSeed(exec: Executor, rid: number): Promise<void> {
  const p = vmPaths(rid);
  await removeTrees(exec, [p.cloudInitDir, p.cloudInitIso]);
}
