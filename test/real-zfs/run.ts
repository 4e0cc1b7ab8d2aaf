/** `npm run test:real-zfs`: the real-OpenZFS project alone (its guest image built first if missing). */
import { spawnSync } from 'node:child_process';
import { REAL_ZFS_ARGS } from './jest-args.ts';

// the operator's arguments (files, -t …) first: --selectProjects and --reporters take every word after them
const r = spawnSync('npx', ['jest', ...process.argv.slice(2), '--selectProjects', 'real-zfs', ...REAL_ZFS_ARGS], { stdio: 'inherit' });
process.exit(r.status ?? 1);
