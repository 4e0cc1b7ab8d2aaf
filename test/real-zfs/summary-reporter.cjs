// The real-OpenZFS run's closing line:
//   real OpenZFS <version>: <n> sequences, <d> unexplained differences; <s>/<t> scenarios passed
// <n>/<d> are the differential suites' counts (results.ts writes one JSON per suite into HM_REAL_ZFS_RESULTS);
// <s>/<t> are this run's tests (a suite that failed to load counts as a failed scenario).
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

class RealZfsSummaryReporter {
  onRunComplete(_contexts, results) {
    const dir = process.env.HM_REAL_ZFS_RESULTS;
    let version = 'unavailable';
    let sequences = 0;
    let unexplained = 0;
    if (dir && existsSync(dir)) {
      const stateFile = join(dir, 'guest.json');
      if (existsSync(stateFile)) {
        const s = JSON.parse(readFileSync(stateFile, 'utf8'));
        version = s.version ?? `unavailable (${s.error})`;
      }
      for (const f of readdirSync(dir).filter((n) => /^sequences-.*\.json$/.test(n))) {
        const c = JSON.parse(readFileSync(join(dir, f), 'utf8'));
        sequences += c.sequences;
        unexplained += c.unexplained;
      }
    }
    const total = results.numTotalTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(
      `\nreal OpenZFS ${version}: ${sequences} sequences, ${unexplained} unexplained differences; ${results.numPassedTests}/${total} scenarios passed\n`,
    );
  }
}
module.exports = RealZfsSummaryReporter;
