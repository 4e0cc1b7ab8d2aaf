/**
 * `npm run test:real-zfs`: the suites that run against real OpenZFS in its QEMU guest. One guest boots per run
 * (./global-setup.ts) and every file shares it, one file at a time; no API stack is started.
 */
import base from '../../jest.config.js';

export default {
  testEnvironment: 'node',
  rootDir: '../..',
  roots: ['<rootDir>/test/real-zfs'],
  testMatch: ['**/*.test.ts'],
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  moduleNameMapper: base.moduleNameMapper,
  globalSetup: '<rootDir>/test/real-zfs/global-setup.ts',
  globalTeardown: '<rootDir>/test/real-zfs/global-teardown.ts',
  maxWorkers: 1,
  // a bound against a hang (× HM_TEST_PATIENCE): commands on a TCG guest are slower than on a host
  testTimeout: 180_000,
  setupFilesAfterEnv: ['<rootDir>/test/setup/patience.ts'],
  reporters: ['default', '<rootDir>/test/real-zfs/summary-reporter.cjs'],
};
