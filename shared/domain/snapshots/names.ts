/**
 * A snapshot's name (the part after `@`) as OpenZFS accepts it (openzfs/zfs module/zcommon/zfs_namecheck.c:
 * valid_char — letters, digits, `-`, `_`, `.`, `:` and space; zfs_component_namecheck/entity_namecheck — not
 * empty, not `.` or `..`, one `@`, the whole `dataset@name` shorter than ZFS_MAX_DATASET_NAME_LEN, 256; libzfs's
 * zfs_validate_name refuses `%`, which zfs keeps for its temporary clones). Names beginning `hm-backup-` are
 * the backup jobs' own and refused here.
 */
const ZFS_MAX_DATASET_NAME_LEN = 256;
const VALID = /^[A-Za-z0-9\-_.: ]+$/;

/** Why `name` cannot name a snapshot of `dataset`, or null. */
export function snapshotNameProblem(dataset: string, name: string): string | null {
  if (name === '') return 'must not be empty';
  if (name === '.' || name === '..') return `"${name}" is reserved by ZFS`;
  const bad = [...name].find((c) => !VALID.test(c));
  if (bad !== undefined) return `invalid character ${JSON.stringify(bad)} (ZFS allows letters, digits, "-", "_", ".", ":" and space)`;
  if (`${dataset}@${name}`.length >= ZFS_MAX_DATASET_NAME_LEN)
    return `${dataset}@${name} is ${dataset.length + 1 + name.length} characters; ZFS names are at most ${ZFS_MAX_DATASET_NAME_LEN - 1}`;
  if (name.startsWith('hm-backup-')) return 'names beginning "hm-backup-" are reserved for the backup jobs\' snapshots';
  return null;
}
