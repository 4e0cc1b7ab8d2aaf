/**
 * What the agent-scenario suites share: pools on file vdevs in the guest (each suite its own names, destroyed
 * afterwards), and a JobContext whose host and peer are SSH executors to the guest — the agent's own SshExecutor,
 * so every command takes the path it takes in production.
 */
import type { Executor } from '#agent/executors/executor';
import type { JobContext } from '#agent/jobs/job';
import type { TaskKind } from '#shared/agent-api/task-kinds';
import { executorFor, type Guest } from './guest.ts';

export const VDEV_DIR = '/var/tmp/hm-vdevs';

/**
 * `zfs create` options of a passphrase encryption root with OpenZFS's fewest PBKDF2 iterations (100 000: openzfs/zfs
 * include/sys/fs/zfs.h MIN_PBKDF2_ITERATIONS, DEFAULT_PBKDF2_ITERATIONS 350 000; FreeBSD 14 and 15 carry the same
 * OpenZFS header): every key load derives the key again, and under TCG each derivation took seconds — 21 % of the
 * differential's time. What is compared does not depend on the count.
 */
export const PASSPHRASE_ROOT = ['-o', 'encryption=on', '-o', 'keyformat=passphrase', '-o', 'pbkdf2iters=100000'];

/** `zpool create [opts] <name> <file vdevs>` with `count` sparse files of sizeMiB each; returns the vdev paths. */
export async function createPool(g: Guest, name: string, opts: { sizeMiB?: number; count?: number; args?: string[] } = {}): Promise<string[]> {
  const files = Array.from({ length: opts.count ?? 1 }, (_, i) => `${VDEV_DIR}/${name}-${i}.img`);
  await g.ok(['mkdir', '-p', VDEV_DIR]);
  await g.ok(['truncate', '-s', `${opts.sizeMiB ?? 256}M`, ...files]);
  // an earlier suite's pool of the same name leaves its children's empty mountpoint directories behind when it is
  // destroyed, and zpool create refuses a default mountpoint that "exists and is not empty": only empty ones go
  await g.sh(`[ ! -d /${name} ] || find /${name} -depth -type d -empty -delete`);
  await g.ok(['zpool', 'create', ...(opts.args ?? []), name, ...files]);
  return files;
}

/** Destroys the pool when it is imported, and removes its vdev files. */
export async function dropPool(g: Guest, name: string): Promise<void> {
  if ((await g.run(['zpool', 'list', '-H', '-o', 'name', name])).code === 0) await g.ok(['zpool', 'destroy', '-f', name]);
  await g.sh(`rm -f ${VDEV_DIR}/${name}-*.img`);
}

/** `zfs get -H -p -o value <props> <ds>` as a list, in the order asked. */
export async function values(g: Guest, props: string, ds: string): Promise<string[]> {
  return (await g.ok(['zfs', 'get', '-H', '-p', '-o', 'value', props, ds])).trimEnd().split('\n');
}

/** `zfs get -H -o property,value,source <props> <ds>` as { prop: 'value source' }. */
export async function propsWithSource(g: Guest, props: string, ds: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const line of (await g.ok(['zfs', 'get', '-H', '-o', 'property,value,source', props, ds])).trimEnd().split('\n')) {
    const [p, v, s] = line.split('\t');
    out[p] = `${v} ${s}`;
  }
  return out;
}

/** A job's context on the guest: `exec` and every peer are SSH executors to it (peers are closed by the job). */
export function jobContext(g: Guest, kind: TaskKind, resource: string, progress: { phase: string; percent: number; output?: string }[] = []): JobContext {
  return {
    exec: g.exec,
    task: { id: 1, kind, resource, nodeId: 'node-a', attempt: 1 },
    peer: (): Executor => executorFor(g.port, g.keyFile),
    progress: async (phase, percent, output) => {
      progress.push({ phase, percent, output });
    },
    signal: new AbortController().signal,
  };
}
