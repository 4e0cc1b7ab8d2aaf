import { WORK, type Sequence, type Step } from './sequence.ts';
import { files, pool } from './sequences-pool.ts';

/** Datasets: create with properties, list/get as the agent reads them, snapshots, rename, set, mount, zvols, destroy. */
export const INVENTORY = ['zfs', 'list', '-Hp', '-o', 'name,type,used,avail,refer,volsize'];
export const MOUNTS = (root: string) => ['zfs', 'list', '-H', '-t', 'filesystem', '-o', 'name,canmount,mounted', '-r', root];
export const value = (props: string, ds: string) => ['zfs', 'get', '-H', '-o', 'value', props, ds];
export const sourced = (props: string, ds: string) => ['zfs', 'get', '-H', '-o', 'property,value,source', props, ds];
export const KEY = 'correct horse battery';
export const keyFile = (name = 'key'): Step => ({ setup: ['tee', `${WORK}/${name}`], stdin: KEY });
/** tank, with tank/a and tank/a/b */
export const tankAB: Step[] = [files(1), pool('tank', 0), { run: ['zfs', 'create', 'tank/a'] }, { run: ['zfs', 'create', 'tank/a/b'] }];
export const write = (path: string, text = 'data\n'): Step => ({ setup: ['tee', path], stdin: text });

export const DATASET_SEQUENCES: Sequence[] = [
  {
    id: 'fs-create-props',
    title: 'zfs create with -o mountpoint and canmount; get with sources; mount states',
    steps: [
      files(1),
      pool('tank', 0),
      { run: ['zfs', 'create', '-o', `mountpoint=${WORK}/m`, '-o', 'canmount=noauto', 'tank/a'] },
      { run: ['zfs', 'create', 'tank/a/b'] },
      { run: sourced('mountpoint,canmount', 'tank/a') },
      { run: sourced('mountpoint,canmount', 'tank/a/b') },
      { run: MOUNTS('tank') },
      { run: value('mountpoint', 'tank/a/b') },
    ],
  },
  {
    id: 'fs-create-refusals',
    title: 'zfs create without the parent, of an existing dataset, in a missing pool',
    steps: [
      files(1),
      pool('tank', 0),
      { run: ['zfs', 'create', 'tank/x/y'] },
      { run: ['zfs', 'create', 'tank'] },
      { run: ['zfs', 'create', 'nope/a'] },
      { run: ['zfs', 'create', '-p', 'tank/x/y'] },
      { run: MOUNTS('tank') },
    ],
  },
  {
    id: 'fs-create-unmounted',
    title: 'zfs create -u leaves it unmounted; zfs mount mounts it; mounting twice is refused',
    steps: [
      files(1),
      pool('tank', 0),
      { run: ['zfs', 'create', '-u', 'tank/a'] },
      { run: MOUNTS('tank') },
      { run: ['zfs', 'mount', 'tank/a'] },
      { run: MOUNTS('tank') },
      { run: ['zfs', 'mount', 'tank/a'] },
      { run: ['zfs', 'mount', 'tank/none'] },
    ],
  },
  {
    id: 'list-inventory',
    title: 'the inventory listing (-Hp, -t filesystem,volume and with snapshots)',
    steps: [
      ...tankAB,
      { run: ['zfs', 'create', '-V', '16M', 'tank/v'] },
      { run: ['zfs', 'snapshot', '-r', 'tank@s1'] },
      { run: [...INVENTORY, '-t', 'filesystem,volume'] },
      { run: [...INVENTORY, '-t', 'filesystem,volume,snapshot'] },
    ],
  },
  {
    id: 'list-exists',
    title: 'zfs list -H -o name of a dataset, a snapshot, and one that is not there',
    steps: [
      ...tankAB,
      { run: ['zfs', 'snapshot', 'tank/a@s1'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', 'tank/a'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', 'tank/a@s1'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', 'tank/none'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', 'tank/a@none'] },
    ],
  },
  {
    id: 'list-snapshot-guids',
    title: "zfs list -H -p -t snapshot -o name,guid -d 1: a dataset's own snapshots, not its children's",
    steps: [
      ...tankAB,
      { run: ['zfs', 'snapshot', '-r', 'tank/a@s1'] },
      { run: ['zfs', 'snapshot', 'tank/a@s2'] },
      { run: ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', 'tank/a'] },
      { run: ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', 'tank/a/b'] },
      { run: ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', 'tank/none'] },
    ],
  },
  {
    id: 'snapshot-recursive',
    title: 'zfs snapshot -r and its refusals (taken, missing dataset, bad name)',
    steps: [
      ...tankAB,
      { run: ['zfs', 'snapshot', '-r', 'tank@s1'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'tank'] },
      { run: ['zfs', 'snapshot', '-r', 'tank@s1'] },
      { run: ['zfs', 'snapshot', 'tank/a@s1'] },
      { run: ['zfs', 'snapshot', 'tank/none@s1'] },
      { run: ['zfs', 'snapshot', '-r', 'tank/none@s1'] },
    ],
  },
  {
    id: 'destroy-snapshots-list',
    title: 'zfs destroy -r ds@a,b (backup pruning), and of a snapshot that is not there',
    steps: [
      ...tankAB,
      { run: ['zfs', 'snapshot', '-r', 'tank/a@s1'] },
      { run: ['zfs', 'snapshot', '-r', 'tank/a@s2'] },
      { run: ['zfs', 'snapshot', '-r', 'tank/a@s3'] },
      { run: ['zfs', 'destroy', '-r', 'tank/a@s1,s2'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'tank'] },
      { run: ['zfs', 'destroy', '-r', 'tank/a@none'] },
      { run: ['zfs', 'destroy', '-r', 'tank/a@s3,none'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'tank'] },
    ],
  },
  {
    id: 'destroy-dependents',
    title: 'zfs destroy of a filesystem with children and snapshots is refused; -r destroys them all',
    steps: [
      ...tankAB,
      { run: ['zfs', 'snapshot', '-r', 'tank/a@s1'] },
      { run: ['zfs', 'destroy', 'tank/a'] },
      { run: ['zfs', 'destroy', 'tank/a/b'] },
      { run: ['zfs', 'destroy', '-r', 'tank/a'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'all', '-r', 'tank'] },
      { run: ['zfs', 'destroy', '-r', 'tank/a'] },
      { run: ['zfs', 'destroy', 'tank'] },
    ],
  },
  {
    id: 'rename',
    title: 'zfs rename keeps children and snapshots and remounts; refusals for an existing target and another pool',
    steps: [
      files(2),
      pool('tank', 0),
      pool('bk', 1),
      { run: ['zfs', 'create', 'tank/a'] },
      { run: ['zfs', 'create', 'tank/a/b'] },
      { run: ['zfs', 'create', 'tank/c'] },
      { run: ['zfs', 'snapshot', '-r', 'tank/a@s1'] },
      { run: ['zfs', 'rename', 'tank/a', 'tank/r'] },
      { run: ['zfs', 'list', '-H', '-o', 'name,mountpoint', '-t', 'all', '-r', 'tank'] },
      { run: ['zfs', 'rename', 'tank/r', 'tank/c'] },
      { run: ['zfs', 'rename', 'tank/r', 'bk/r'] },
      { run: ['zfs', 'rename', 'tank/none', 'tank/x'] },
      { run: MOUNTS('tank') },
    ],
  },
  {
    id: 'set-mountpoint-canmount',
    title: 'zfs set mountpoint (remount, inherited by children) and canmount; refusals',
    steps: [
      ...tankAB,
      { run: ['zfs', 'set', `mountpoint=${WORK}/a`, 'tank/a'] },
      { run: sourced('mountpoint,canmount', 'tank/a/b') },
      { run: MOUNTS('tank') },
      { run: ['zfs', 'set', 'canmount=noauto', 'tank/a'] },
      { run: sourced('mountpoint,canmount', 'tank/a') },
      { run: MOUNTS('tank') },
      { run: ['zfs', 'set', 'mountpoint=relative', 'tank/a'] },
      { run: ['zfs', 'set', 'canmount=maybe', 'tank/a'] },
      { run: ['zfs', 'set', 'canmount=on', 'tank/none'] },
      { run: ['zfs', 'set', 'guid=1', 'tank/a'] },
    ],
  },
  {
    id: 'set-mountpoint-unmounted',
    title: 'zfs set mountpoint on an unmounted filesystem leaves it unmounted',
    steps: [
      files(1),
      pool('tank', 0),
      { run: ['zfs', 'create', '-u', 'tank/a'] },
      { run: ['zfs', 'set', `mountpoint=${WORK}/a`, 'tank/a'] },
      { run: MOUNTS('tank') },
      { run: ['zfs', 'mount', 'tank/a'] },
      { run: value('mountpoint', 'tank/a') },
    ],
  },
  {
    id: 'zvol-create-destroy',
    title: 'zfs create -V (the host-check zvol): listed as a volume, its volsize; destroyed',
    steps: [
      files(1),
      pool('tank', 0),
      { run: ['zfs', 'create', '-V', '16M', 'tank/v'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'volume', '-r', 'tank'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', 'tank/v'] },
      { run: ['zfs', 'get', '-H', '-p', '-o', 'value', 'volsize', 'tank/v'] },
      { run: value('mountpoint', 'tank/v') },
      { run: ['zfs', 'destroy', 'tank/v'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'volume', '-r', 'tank'] },
    ],
  },
  {
    id: 'zvol-refusals',
    title: 'zfs create -V refuses a bad size, a zero size, a missing parent, a taken name',
    steps: [
      files(1),
      pool('tank', 0),
      { run: ['zfs', 'create', '-V', '16Q', 'tank/v'] },
      { run: ['zfs', 'create', '-V', '0', 'tank/v'] },
      { run: ['zfs', 'create', '-V', '16M', 'tank/none/v'] },
      { run: ['zfs', 'create', '-V', '16M', 'tank/v'] },
      { run: ['zfs', 'create', '-V', '16M', 'tank/v'] },
      { run: ['zfs', 'create', '-V', '16M', 'nope/v'] },
    ],
  },
  {
    id: 'get-encryption-plain',
    title: 'zfs get -H -o value encryption / encryptionroot / keylocation of an unencrypted dataset',
    steps: [
      ...tankAB,
      { run: value('encryption', 'tank/a') },
      { run: value('encryption,encryptionroot', 'tank/a') },
      { run: value('keylocation', 'tank/a') },
      { run: sourced('keyformat,keystatus', 'tank/a') },
      { run: value('encryption', 'tank/none') },
    ],
  },
  {
    id: 'encrypted-create',
    title: 'an encryption root with a key file and a child inheriting it: encryption properties as read back',
    steps: [
      files(1),
      pool('tank', 0),
      keyFile(),
      { run: ['zfs', 'create', '-o', 'encryption=on', '-o', 'keyformat=passphrase', '-o', `keylocation=file://${WORK}/key`, 'tank/enc'] },
      { run: ['zfs', 'create', 'tank/enc/c'] },
      { run: value('encryption,encryptionroot', 'tank/enc') },
      { run: value('encryption,encryptionroot', 'tank/enc/c') },
      { run: value('keylocation', 'tank/enc') },
      { run: value('keylocation', 'tank/enc/c') },
      { run: sourced('keyformat,keystatus', 'tank/enc/c') },
      { run: ['zfs', 'load-key', 'tank/enc'] },
      { run: ['zfs', 'load-key', 'tank/a'] },
    ],
  },
];
