import { runChecked, type Executor } from '../../executors/executor.ts';

/**
 * Mounting filesystems after a receive. `zfs recv -u` leaves what it creates unmounted, and neither `zfs rename`
 * nor `zfs set mountpoint` mounts a filesystem that was not mounted (zfsprops(7)): a received dataset put in
 * place must be mounted explicitly before a guest uses its directory.
 */
export interface MountState {
  name: string;
  canmount: string;
  mounted: boolean;
}

/** A filesystem and its descendants, parents first (`zfs list -H -o name,canmount,mounted -r`); volumes left out. */
export async function mountStates(exec: Executor, dataset: string): Promise<MountState[]> {
  const out = await runChecked(exec, ['zfs', 'list', '-H', '-t', 'filesystem', '-o', 'name,canmount,mounted', '-r', dataset]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, canmount, mounted] = line.split('\t');
      return { name, canmount, mounted: mounted === 'yes' };
    });
}

export async function mount(exec: Executor, filesystem: string): Promise<void> {
  await runChecked(exec, ['zfs', 'mount', filesystem]);
}

/** Mounts every filesystem of the tree that has canmount=on and is not mounted, parents first; returns their names. */
export async function mountTree(exec: Executor, dataset: string): Promise<string[]> {
  const pending = (await mountStates(exec, dataset)).filter((s) => s.canmount === 'on' && !s.mounted).map((s) => s.name);
  for (const name of pending) await mount(exec, name);
  return pending;
}

/**
 * Mounts a tree for a guest to use: its root whenever it can be mounted (`canmount` on or `noauto` — a `noauto`
 * root is skipped by `zfs mount -a` but mounts when named), then the descendants with `canmount=on`, parents
 * first. Returns what it mounted.
 */
export async function mountForUse(exec: Executor, dataset: string): Promise<string[]> {
  const pending = (await mountStates(exec, dataset))
    .filter((s) => !s.mounted && (s.canmount === 'on' || (s.name === dataset && s.canmount === 'noauto')))
    .map((s) => s.name);
  for (const name of pending) await mount(exec, name);
  return pending;
}

/** The filesystems of a tree that are mounted now, by name relative to the tree's root ('' for the root itself). */
export async function mountedRelative(exec: Executor, dataset: string): Promise<string[]> {
  return (await mountStates(exec, dataset)).filter((s) => s.mounted).map((s) => s.name.slice(dataset.length));
}

/** Mounts again those of `relative` (names relative to `dataset`) that are not mounted, parents first. */
export async function remountRelative(exec: Executor, dataset: string, relative: string[]): Promise<void> {
  const now = new Map((await mountStates(exec, dataset)).map((s) => [s.name.slice(dataset.length), s.mounted]));
  for (const rel of relative) if (now.get(rel) === false) await mount(exec, `${dataset}${rel}`);
}
