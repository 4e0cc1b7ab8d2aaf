/**
 * Every command family of the simulator. A new family is one file under this folder that registers its
 * commands at import (registerCommand / registerSubcommand / registerTicker / registerSysctlProvider);
 * add one import line for it here. Keep the list sorted.
 */
import './cpuset.ts';
import './df.ts';
import './env.ts';
import './ctladm.ts';
import './ctld.ts';
import './files.ts';
import './host-release.ts';
import './jail.ts';
import './jexec.ts';
import './jls.ts';
import './kldstat.ts';
import './makefs.ts';
import './pciconf.ts';
import './pw.ts';
import './netstat.ts';
import './rctl.ts';
import './service-jail.ts';
import './sh.ts';
import './sockstat.ts';
import './ssh-keygen.ts';
import './sysrc.ts';
import './truncate.ts';
import './pwd-mkdb.ts';
import './sysctl.ts';
import './sysctl-arcstats.ts';
import './virsh.ts';
import './which.ts';
import './zfs.ts';
import './zfs-boot.ts';
import './zfs-create.ts';
import './zfs-destroy.ts';
import './zfs-hold-rollback.ts';
import './zfs-load-key.ts';
import './zfs-change-key.ts';
import './zfs-mount.ts';
import './zfs-rename.ts';
import './zfs-set.ts';
import './zfs-snapshot-send-recv.ts';
import './zpool.ts';
import './zpool-create.ts';
