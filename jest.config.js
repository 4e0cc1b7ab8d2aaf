/**
 * Jest in three tiers (test/setup/tiers.cjs decides each file's tier; docs/testing.md): `fast` needs no stack and
 * runs in parallel with no global setup; `stack` and `e2e` get one stack per worker from globalSetup (own ports,
 * own store), handed to each file by test/setup/select-stack.ts; `real-zfs` boots one real-OpenZFS guest instead. `npm test` (test/setup/run-tiers.ts) runs the
 * tiers in order; `npx jest <files>` runs the named files in their own tiers.
 */
import tiers from './test/setup/tiers.cjs';

const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', importAttributes: true }, target: 'es2022', experimental: { keepImportAttributes: true } }, module: { type: 'commonjs' } }];
const plan = tiers.plan(import.meta.dirname);

export const common = {
  rootDir: import.meta.dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.(t|j)sx?$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|kysely|content-disposition)/)'],
  // Middy 7 exports only an `import` condition, which jest's CommonJS resolver does not try: name the files
  moduleNameMapper: { '^@middy/([a-z-]+)$': '<rootDir>/node_modules/@middy/$1/index.js' },
  setupFilesAfterEnv: ['<rootDir>/test/setup/patience.ts'],
};
const files = (list) => (list.length ? list.map((f) => `<rootDir>/${f}`) : ['<rootDir>/test/no-file-in-this-tier']);
const withStacks = {
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  setupFiles: ['<rootDir>/test/setup/select-stack.ts'],
};

export default {
  projects: [
    { ...common, displayName: 'fast', testMatch: files(plan.fast) },
    { ...common, ...withStacks, displayName: 'stack', testMatch: files(plan.stack) },
    { ...common, ...withStacks, displayName: 'e2e', testMatch: files(plan.e2e) },
    // real OpenZFS in its QEMU guest: one guest per run (no API stack), one file at a time (`npm run test:real-zfs`)
    {
      ...common,
      displayName: 'real-zfs',
      testMatch: files(plan['real-zfs']),
      globalSetup: '<rootDir>/test/real-zfs/global-setup.ts',
      globalTeardown: '<rootDir>/test/real-zfs/global-teardown.ts',
    },
  ],
  // one worker unless told (-w): a worker per stack, and a helper running a few files keeps one stack
  maxWorkers: 1,
  // a bound against a hang, not a measurement: 30 s × HM_TEST_PATIENCE (3), like every timeout a test names
  // (test/setup/patience.ts stretches those), so the suite passes on one busy core
  testTimeout: 90_000,
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.cjs'],
};
