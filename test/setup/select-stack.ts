/**
 * Runs in each test file's environment before the file: points the test helpers (HM_TEST_API …) at this jest
 * worker's own stack, one of those test/setup/global-setup.ts started. Jest numbers its workers 1…maxWorkers
 * (in band: 1), and a worker runs one file at a time, so no two files ever share a stack at once.
 */
const stacks = JSON.parse(process.env.HM_TEST_STACKS || '[]') as Array<{
  stateFile: string;
  apiUrl: string;
  databaseUrl: string;
  adminToken: string;
  storeKind: string;
  logDir: string;
}>;
if (!stacks.length) throw new Error('no test stack: test/setup/global-setup.ts did not run');
const mine = stacks[(Number(process.env.JEST_WORKER_ID || '1') - 1) % stacks.length];
process.env.HM_TEST_STACK = mine.stateFile;
process.env.HM_TEST_API = mine.apiUrl;
process.env.HM_TEST_DATABASE_URL = mine.databaseUrl;
process.env.HM_TEST_ADMIN_TOKEN = mine.adminToken;
process.env.HM_TEST_STORE = mine.storeKind;
// the stack's own logs (offline.log, sweeper.log …), for tests that read what was logged
process.env.HM_TEST_LOG_DIR = mine.logDir;
