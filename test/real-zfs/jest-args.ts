/**
 * How jest runs the real-OpenZFS project (jest.config.js's `real-zfs`), for `npm run test:real-zfs` and npm test's
 * tier runner alike: one file at a time against the run's one guest, a longer bound against a hang (commands on a
 * TCG guest are slower than on a host), and the closing line `real OpenZFS <version>: <n> sequences, …`.
 */
export const REAL_ZFS_ARGS = [
  '-w',
  '1',
  '--testTimeout',
  '180000',
  '--reporters',
  'default',
  '--reporters',
  './test/setup/summary-reporter.cjs',
  '--reporters',
  './test/real-zfs/summary-reporter.cjs',
];
