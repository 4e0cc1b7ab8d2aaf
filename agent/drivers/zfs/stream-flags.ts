import { runChecked, type Executor } from '../../executors/executor.ts';

/**
 * The flags a replication stream (`zfs send -R`) needs for its source. libzfs refuses to send an encrypted
 * dataset with its properties unless the stream is raw (libzfs_sendrecv.c send_iterate_fs: "cannot send %s@%s:
 * encrypted dataset %s may not be sent with properties without the raw flag"), so an encrypted source is sent
 * with `-w` (its blocks as they are on disk: the target never sees the key). An unencrypted source is sent with
 * `-L -c` — records over 128 KiB stay whole and compressed blocks travel compressed (zfs-send(8)) — and never with
 * `-w`: the kernel refuses a raw incremental onto a dataset received non-raw (dmu_recv.c
 * recv_begin_check_existing_impl: `if (!encrypted && raw) return (EINVAL)`), so switching an existing copy to raw
 * would break it. Once a copy holds large blocks, every later incremental must carry `-L` too (dmu_recv.c
 * recv_check_large_blocks), which always sending `-L` guarantees.
 */
export const streamFlags = (encrypted: boolean): string[] => (encrypted ? ['-w'] : ['-L', '-c']);

/** Whether a dataset is encrypted: its `encryption` property is not `off` (`-` where zfs has no such property). */
export async function isEncrypted(exec: Executor, dataset: string): Promise<boolean> {
  const value = (await runChecked(exec, ['zfs', 'get', '-H', '-o', 'value', 'encryption', dataset])).trim();
  return value !== 'off' && value !== '-' && value !== '';
}
