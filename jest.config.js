/** Jest over the real stack: globalSetup starts serverless-offline + the store once for the whole run. */
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', importAttributes: true }, target: 'es2022', experimental: { keepImportAttributes: true } }, module: { type: 'commonjs' } }];

export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|kysely|content-disposition)/)'],
  // Middy 7 exports only an `import` condition, which jest's CommonJS resolver does not try: name the files
  moduleNameMapper: { '^@middy/([a-z-]+)$': '<rootDir>/node_modules/@middy/$1/index.js' },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // one shared stack; tests that count or dismiss global state must not race each other
  maxWorkers: 1,
  // a bound against a hang, not a measurement: 30 s × HM_TEST_PATIENCE (3), like every timeout a test names
  // (test/setup/patience.ts stretches those), so the suite passes on one busy core
  testTimeout: 90_000,
  setupFilesAfterEnv: ['<rootDir>/test/setup/patience.ts'],
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.cjs'],
};
