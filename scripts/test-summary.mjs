// Prints one closing line for `npm test` from the runners' JSON reports: "tests: N passed, N failed, N skipped".
import fs from "node:fs";

const read = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : null);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of ["test-results/summary-vitest-sqlite.json", "test-results/summary-vitest-pg.json"]) {
  const report = read(file);
  if (!report) continue;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
for (const file of ["test-results/summary-playwright.json", "test-results/summary-playwright-pg.json"]) {
  const e2e = read(file);
  if (!e2e) continue;
  passed += e2e.stats.expected + e2e.stats.flaky;
  failed += e2e.stats.unexpected;
  skipped += e2e.stats.skipped;
}
console.log(`\nopledger tests (${process.argv[2] ?? "?"} s): ${passed} passed, ${failed} failed, ${skipped} skipped`);
