// Prints the plain closing line CI reads: "N passed, N failed". When HM_TEST_RESULTS names a file (npm test's
// tier runner, test/setup/run-tiers.ts), it also appends this run's counts and the ids of its test cases
// (file + full name) there, so the runner can count distinct cases over all tiers and passes.
const { appendFileSync } = require('node:fs');
const { relative } = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed\n`);
    const out = process.env.HM_TEST_RESULTS;
    if (!out) return;
    const cases = [];
    const slow = [];
    for (const file of results.testResults) {
      const name = relative(process.cwd(), file.testFilePath);
      for (const t of file.testResults) cases.push(`${name} › ${t.fullName}`);
      slow.push([name, file.perfStats.end - file.perfStats.start]);
    }
    appendFileSync(out, `${JSON.stringify({ passed: results.numPassedTests, failed, cases, files: slow })}\n`);
  }
}
module.exports = SummaryReporter;
