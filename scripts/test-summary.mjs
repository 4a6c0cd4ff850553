// Adds up Jest's --json reports into one closing line: "tests: N passed, N failed, N skipped".
// A skipped (or todo) test fails the summary: every test runs, or it is not in the suite.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const fileSkipped = report.numPendingTests + report.numTodoTests;
  passed += report.numPassedTests;
  failed += report.numFailedTests + report.numRuntimeErrorTestSuites;
  skipped += fileSkipped;
  console.log(
    `${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${fileSkipped} skipped`,
  );
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && skipped === 0 && passed > 0 ? 0 : 1);
