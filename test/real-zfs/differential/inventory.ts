// biome-ignore-all lint/suspicious/noTemplateCurlyInString: call sites are the source text of TypeScript template literals
/**
 * Every `zfs`/`zpool` command form the agent and the host-check kit issue, each with the call sites that build it
 * (call-sites.ts finds them in the source) and the argv shapes it takes. A shape is a list of tokens: a token
 * matches one argument, `*` in it standing for any text. Every shape must be run by at least one differential
 * sequence (inventory.test.ts), so each form the agent relies on is checked against real OpenZFS.
 */
export interface Form {
  id: string;
  /** `file: literal` of each call site (call-sites.ts's key) */
  sites: string[];
  /** the argv shapes the sites build (spreads and conditions expanded) */
  shapes: string[][];
}

const site = (file: string, literal: string) => `${file}: ${literal}`;

export const FORMS: Form[] = [
  {
    id: 'zfs version',
    sites: [site('agent/doctor/checks.ts', "['zfs', 'version']"), site('agent/drivers/host-capabilities.ts', "['zfs', 'version']")],
    shapes: [['zfs', 'version']],
  },
  {
    id: 'zpool status (all pools)',
    sites: [site('agent/collectors/inventory-probes.ts', "['zpool', 'status']"), site('agent/collectors/telemetry.ts', "['zpool', 'status']")],
    shapes: [['zpool', 'status']],
  },
  {
    id: 'zpool status [-g] pool',
    sites: [site('agent/drivers/zfs/pools.ts', "['zpool', 'status', ...(opts.guids ? ['-g'] : []), pool]")],
    shapes: [
      ['zpool', 'status', '*'],
      ['zpool', 'status', '-g', '*'],
    ],
  },
  {
    id: 'zpool list -Hp -o columns',
    sites: [site('agent/drivers/zfs/pools.ts', "['zpool', 'list', '-Hp', '-o', POOL_LIST_COLUMNS.join(',')]")],
    shapes: [['zpool', 'list', '-Hp', '-o', 'name,guid,size,allocated,free,fragmentation,capacity,dedupratio,health']],
  },
  {
    id: 'zpool get guid',
    sites: [site('agent/drivers/zfs/pools.ts', "['zpool', 'get', '-H', '-o', 'value', 'guid', pool]")],
    shapes: [['zpool', 'get', '-H', '-o', 'value', 'guid', '*']],
  },
  {
    id: 'zpool replace',
    sites: [site('agent/drivers/zfs/pools.ts', "['zpool', 'replace', pool, oldDevice, newDevice]")],
    shapes: [['zpool', 'replace', '*', '*', '*']],
  },
  {
    id: 'zpool detach',
    sites: [site('agent/drivers/zfs/pools.ts', "['zpool', 'detach', pool, device]")],
    shapes: [['zpool', 'detach', '*', '*']],
  },
  {
    id: 'zpool iostat -Hpl',
    sites: [site('agent/drivers/zfs/pools.ts', "['zpool', 'iostat', '-Hpl']")],
    // poolIostat adds pools, and `-y <window> 1` for a fresh interval
    shapes: [
      ['zpool', 'iostat', '-Hpl'],
      ['zpool', 'iostat', '-Hpl', '*'],
      ['zpool', 'iostat', '-Hpl', '-y', '*', '1', '1'],
    ],
  },
  {
    id: 'zpool create -m / destroy (host check)',
    sites: [
      site(
        'agent/check/scenarios/scratch-pool.ts',
        "['zpool', 'create', '-o', 'failmode=continue', '-o', 'cachefile=none', '-m', o.mountpoint, pool, o.vdevs[0]]",
      ),
      site('agent/check/scenarios/scratch-pool.ts', "['zpool', 'destroy', pool]"),
    ],
    shapes: [
      ['zpool', 'create', '-o', 'failmode=continue', '-o', 'cachefile=none', '-m', '/*', '*', '/*'],
      ['zpool', 'destroy', '*'],
    ],
  },
  {
    id: 'zfs list -Hp inventory columns',
    sites: [site('agent/drivers/zfs/datasets.ts', "['zfs', 'list', '-Hp', '-o', DATASET_COLUMNS.join(','), '-t', types.join(',')]")],
    shapes: [
      ['zfs', 'list', '-Hp', '-o', 'name,type,used,avail,refer,volsize', '-t', 'filesystem,volume'],
      ['zfs', 'list', '-Hp', '-o', 'name,type,used,avail,refer,volsize', '-t', 'filesystem,volume,snapshot'],
    ],
  },
  {
    id: 'zfs list -H -o name (existence)',
    sites: [
      site('agent/drivers/zfs/replication.ts', "['zfs', 'list', '-H', '-o', 'name', name]"),
      site('agent/check/scenarios/iscsi.ts', "['zfs', 'list', '-H', '-o', 'name', zvol]"),
    ],
    shapes: [['zfs', 'list', '-H', '-o', 'name', '*']],
  },
  {
    id: 'zfs list -t volume -r (host check)',
    sites: [site('agent/check/scenarios/scratch-pool.ts', "['zfs', 'list', '-H', '-o', 'name', '-t', 'volume', '-r', pool]")],
    shapes: [['zfs', 'list', '-H', '-o', 'name', '-t', 'volume', '-r', '*']],
  },
  {
    id: 'zfs list snapshots with guids',
    sites: [site('agent/drivers/zfs/backup-snapshots.ts', "['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', dataset]")],
    shapes: [['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', '*']],
  },
  {
    id: 'zfs list mount states',
    sites: [site('agent/drivers/zfs/mount.ts', "['zfs', 'list', '-H', '-t', 'filesystem', '-o', 'name,canmount,mounted', '-r', dataset]")],
    shapes: [['zfs', 'list', '-H', '-t', 'filesystem', '-o', 'name,canmount,mounted', '-r', '*']],
  },
  {
    id: 'zfs mount',
    sites: [site('agent/drivers/zfs/mount.ts', "['zfs', 'mount', filesystem]")],
    shapes: [['zfs', 'mount', '*']],
  },
  {
    id: 'zfs snapshot',
    sites: [
      site('agent/drivers/zfs/replication.ts', "['zfs', 'snapshot', '-r', name]"),
      site('agent/check/scenarios/scratch-pool.ts', "['zfs', 'snapshot', `${pool}@hm-check-1`]"),
      site('agent/jobs/snapshots.ts', "['zfs', 'snapshot', ...snapshots]"),
    ],
    shapes: [
      ['zfs', 'snapshot', '-r', '*@*'],
      ['zfs', 'snapshot', '*@*'],
      // a guest's snapshot: one name per dataset of the guest, taken together
      ['zfs', 'snapshot', '*@*', '*@*'],
    ],
  },
  {
    id: 'zfs destroy',
    sites: [
      site('agent/drivers/zfs/replication.ts', "['zfs', 'destroy', '-r', name]"),
      site('agent/drivers/zfs/backup-snapshots.ts', "['zfs', 'destroy', '-r', `${dataset}@${names.join(',')}`]"),
      site('agent/check/scenarios/iscsi.ts', "['zfs', 'destroy', zvol]"),
      site('agent/jobs/snapshots.ts', "['zfs', 'destroy', p.snapshot]"),
    ],
    shapes: [
      ['zfs', 'destroy', '-r', '*'],
      ['zfs', 'destroy', '-r', '*@*,*'],
      ['zfs', 'destroy', '*'],
    ],
  },
  {
    id: 'zfs create -V (host check)',
    sites: [site('agent/check/scenarios/iscsi.ts', "['zfs', 'create', '-V', ZVOL_SIZE, zvol]")],
    shapes: [['zfs', 'create', '-V', '*', '*']],
  },
  {
    id: 'backup stream: send -R (-L -c | -w) [-I] and its -nvP estimate',
    sites: [
      site('agent/drivers/zfs/backup-stream.ts', "['zfs', 'send', '-R', ...streamFlags(encrypted), ...(from ? ['-I', `@${from}`] : []), `${source}@${snap}`]"),
    ],
    shapes: [
      ['zfs', 'send', '-R', '-L', '-c', '*@*'],
      ['zfs', 'send', '-R', '-L', '-c', '-I', '@*', '*@*'],
      ['zfs', 'send', '-R', '-w', '*@*'],
      ['zfs', 'send', '-R', '-w', '-I', '@*', '*@*'],
      ['zfs', 'send', '-nvP', '-R', '-L', '-c', '*@*'],
      ['zfs', 'send', '-nvP', '-R', '-L', '-c', '-I', '@*', '*@*'],
      ['zfs', 'send', '-nvP', '-R', '-w', '*@*'],
    ],
  },
  {
    id: 'backup stream: recv -u -x mountpoint -o canmount=noauto -v',
    sites: [site('agent/drivers/zfs/backup-stream.ts', "['zfs', 'recv', '-u', '-x', 'mountpoint', '-o', 'canmount=noauto', '-v', target]")],
    shapes: [['zfs', 'recv', '-u', '-x', 'mountpoint', '-o', 'canmount=noauto', '-v', '*']],
  },
  {
    id: 'replication (E20): send -R (-L -c | -w) [-i] and its -nP estimate',
    sites: [
      site(
        'agent/drivers/zfs/replication.ts',
        "['zfs', 'send', '-R', ...streamFlags(s.encryption !== null), ...(s.from ? ['-i', `@${s.from}`] : []), `${s.dataset}@${s.snap}`]",
      ),
    ],
    shapes: [
      ['zfs', 'send', '-R', '-L', '-c', '*@*'],
      ['zfs', 'send', '-R', '-L', '-c', '-i', '@*', '*@*'],
      ['zfs', 'send', '-R', '-w', '*@*'],
      ['zfs', 'send', '-R', '-w', '-i', '@*', '*@*'],
      ['zfs', 'send', '-nP', '-R', '-L', '-c', '*@*'],
      ['zfs', 'send', '-nP', '-R', '-L', '-c', '-i', '@*', '*@*'],
    ],
  },
  {
    id: 'replication (E20): recv -F -u [-o keylocation=]',
    sites: [
      site(
        'agent/drivers/zfs/replication.ts',
        "['zfs', 'recv', '-F', '-u', ...(s.encryption && !s.from ? ['-o', `keylocation=${s.encryption.keylocation}`] : []), s.dataset]",
      ),
    ],
    shapes: [
      ['zfs', 'recv', '-F', '-u', '*'],
      ['zfs', 'recv', '-F', '-u', '-o', 'keylocation=*', '*'],
    ],
  },
  {
    id: 'zfs get -H -o value (encryption, encryptionroot, keylocation, mountpoint)',
    sites: [
      site('agent/drivers/zfs/replication.ts', "['zfs', 'get', '-H', '-o', 'value', 'encryption,encryptionroot', dataset]"),
      site('agent/drivers/zfs/replication.ts', "['zfs', 'get', '-H', '-o', 'value', 'keylocation', encroot]"),
      site('agent/drivers/zfs/replication.ts', "['zfs', 'get', '-H', '-o', 'value', 'mountpoint', dataset]"),
      site('agent/drivers/zfs/stream-flags.ts', "['zfs', 'get', '-H', '-o', 'value', 'encryption', dataset]"),
    ],
    shapes: [
      ['zfs', 'get', '-H', '-o', 'value', 'encryption,encryptionroot', '*'],
      ['zfs', 'get', '-H', '-o', 'value', 'keylocation', '*'],
      ['zfs', 'get', '-H', '-o', 'value', 'mountpoint', '*'],
      ['zfs', 'get', '-H', '-o', 'value', 'encryption', '*'],
    ],
  },
  {
    id: 'zfs get -H -o property,value,source (restore)',
    sites: [site('agent/drivers/zfs/restore.ts', "['zfs', 'get', '-H', '-o', 'property,value,source', props.join(','), dataset]")],
    shapes: [
      ['zfs', 'get', '-H', '-o', 'property,value,source', 'keyformat,keystatus', '*'],
      ['zfs', 'get', '-H', '-o', 'property,value,source', 'mountpoint,canmount', '*'],
    ],
  },
  {
    id: 'zfs load-key',
    sites: [
      site('agent/drivers/zfs/replication.ts', "['zfs', 'load-key', dataset]"),
      site('agent/drivers/zfs/restore.ts', "['zfs', 'load-key', '-L', 'prompt', dataset]"),
    ],
    shapes: [
      ['zfs', 'load-key', '*'],
      ['zfs', 'load-key', '-L', 'prompt', '*'],
    ],
  },
  {
    id: 'restore (E15): send -R -w | recv -u -x mountpoint -x canmount',
    sites: [
      site('agent/drivers/zfs/restore.ts', "['zfs', 'send', '-R', '-w', `${dataset}@${snap}`]"),
      site('agent/drivers/zfs/restore.ts', "['zfs', 'recv', '-u', '-x', 'mountpoint', '-x', 'canmount', into]"),
    ],
    shapes: [
      ['zfs', 'send', '-R', '-w', '*@*'],
      ['zfs', 'recv', '-u', '-x', 'mountpoint', '-x', 'canmount', '*'],
    ],
  },
  {
    id: 'zfs rename',
    sites: [site('agent/drivers/zfs/restore.ts', "['zfs', 'rename', from, to]")],
    shapes: [['zfs', 'rename', '*', '*']],
  },
  {
    id: 'zfs set mountpoint / canmount',
    sites: [
      site('agent/drivers/zfs/replication.ts', "['zfs', 'set', `mountpoint=${path}`, dataset]"),
      site('agent/drivers/zfs/restore.ts', "['zfs', 'set', `canmount=${value}`, dataset]"),
      site('agent/drivers/zfs/restore.ts', "['zfs', 'set', `mountpoint=${mountpoint}`, dataset]"),
    ],
    shapes: [
      ['zfs', 'set', 'mountpoint=/*', '*'],
      ['zfs', 'set', 'canmount=*', '*'],
    ],
  },
  {
    id: 'backup copy rolled back to the stream origin',
    sites: [
      site('agent/drivers/zfs/backup-snapshots.ts', "['zfs', 'list', '-H', '-o', 'name', '-t', 'filesystem,volume', '-r', dataset]"),
      site('agent/drivers/zfs/backup-snapshots.ts', "['zfs', 'rollback', '-r', `${ds}@${from}`]"),
    ],
    shapes: [
      ['zfs', 'list', '-H', '-o', 'name', '-t', 'filesystem,volume', '-r', '*'],
      ['zfs', 'rollback', '-r', '*@*'],
    ],
  },
  {
    id: 'restored dataset back under its encryption root',
    sites: [
      site('agent/drivers/zfs/restore.ts', "['zfs', 'change-key', '-i', dataset]"),
      site('agent/drivers/zfs/restore.ts', "['zfs', 'set', `keylocation=${keylocation}`, dataset]"),
    ],
    shapes: [
      ['zfs', 'change-key', '-i', '*'],
      ['zfs', 'set', 'keylocation=*', '*'],
    ],
  },
  {
    id: 'zpool get altroot',
    sites: [site('agent/drivers/zfs/altroot.ts', "['zpool', 'get', '-H', '-o', 'value', 'altroot', pool]")],
    shapes: [['zpool', 'get', '-H', '-o', 'value', 'altroot', '*']],
  },
  {
    id: 'zfs rollback [-r] (a guest snapshot)',
    sites: [site('agent/jobs/snapshots.ts', "['zfs', 'rollback', ...(p.destroyNewer ? ['-r'] : []), p.snapshot]")],
    shapes: [
      ['zfs', 'rollback', '*@*'],
      ['zfs', 'rollback', '-r', '*@*'],
    ],
  },
  {
    id: 'zfs list -t snapshot -o name -d 1 (what a rollback destroys)',
    sites: [site('agent/jobs/snapshots.ts', "['zfs', 'list', '-H', '-t', 'snapshot', '-o', 'name', '-d', '1', dataset]")],
    shapes: [['zfs', 'list', '-H', '-t', 'snapshot', '-o', 'name', '-d', '1', '*']],
  },
  {
    id: 'zfs list -t snapshot with userrefs and clones (the snapshots inventory)',
    sites: [site('agent/drivers/zfs/snapshots.ts', "['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,creation,used,userrefs,clones']")],
    shapes: [['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,creation,used,userrefs,clones']],
  },
  {
    id: 'zfs holds -H',
    sites: [site('agent/drivers/zfs/snapshots.ts', "['zfs', 'holds', '-H', ...held]")],
    shapes: [['zfs', 'holds', '-H', '*@*']],
  },
];

/** Whether argv has the shape (same length, each token equal or matching its `*` pattern). */
export function matchesShape(argv: string[], shape: string[]): boolean {
  if (argv.length !== shape.length) return false;
  return shape.every((t, i) => {
    if (!t.includes('*')) return t === argv[i];
    const re = new RegExp(
      `^${t
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
        .join('.*')}$`,
    );
    return re.test(argv[i]);
  });
}
