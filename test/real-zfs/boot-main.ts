/**
 * Development: boots a guest and keeps it until SIGTERM/SIGINT, writing its state to the file given as the first
 * argument; `HM_REAL_ZFS_ATTACH=<that file> npx jest -c test/real-zfs/jest.config.js …` then runs suites against it
 * without a boot per run. Every suite cleans up what it made, but the guest is not a clean boot for the next run.
 */
import { writeFileSync } from 'node:fs';
import { bootGuest } from './guest.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx test/real-zfs/boot-main.ts STATE_FILE');
  process.exit(2);
}
const g = await bootGuest();
writeFileSync(file, JSON.stringify({ port: g.port, keyFile: g.keyFile, version: g.version, accelerator: g.accelerator, pid: g.pid }));
console.log(`guest ready: ${file}`);
const stop = async () => {
  await g.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
setInterval(() => undefined, 1 << 30);
