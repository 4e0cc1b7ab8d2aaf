/** `npm run test:real-zfs`: the real-OpenZFS project alone (its guest image built first if missing). */
import { spawnSync } from 'node:child_process';
import { REAL_ZFS_ARGS } from './jest-args.ts';

const r = spawnSync('npx', ['jest', '--selectProjects', 'real-zfs', ...REAL_ZFS_ARGS, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
