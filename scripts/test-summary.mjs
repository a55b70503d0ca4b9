// Prints the closing lines of `npm test` from the runners' JSON reports: each failed or flaky e2e test with the first
// line of its error (CI shows only the tail of the log, so the failures must be named there), then
// "tests: N passed, N failed, N skipped".
import fs from "node:fs";

const read = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : null);
const firstLine = (message) =>
  (message ?? "")
    .replace(/\u001b\[[0-9;]*m/g, "")
    .trim()
    .split("\n")[0]
    .slice(0, 200);
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

// A failed unit pass stops npm test before this script (vitest names its failures at the end of its own output).
for (const file of ["test-results/summary-vitest-sqlite.json", "test-results/summary-vitest-pg.json"]) {
  const report = read(file);
  if (!report) continue;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}

/** Every spec under a suite, or under the report itself (its top level has suites too). */
function* specsOf(suite) {
  for (const spec of suite.specs ?? []) yield spec;
  for (const child of suite.suites ?? []) yield* specsOf(child);
}
for (const [pass, file] of [
  ["e2e SQLite", "test-results/summary-playwright.json"],
  ["e2e PostgreSQL", "test-results/summary-playwright-pg.json"],
]) {
  const e2e = read(file);
  if (!e2e) continue;
  passed += e2e.stats.expected + e2e.stats.flaky;
  failed += e2e.stats.unexpected;
  skipped += e2e.stats.skipped;
  for (const spec of specsOf(e2e)) {
    for (const test of spec.tests ?? []) {
      if (test.status !== "unexpected" && test.status !== "flaky") continue;
      const error = test.results?.find((result) => result.error)?.error?.message;
      failures.push(
        `${pass}${test.status === "flaky" ? " (flaky, passed on retry)" : ""}: ${spec.file}:${spec.line} › ` +
          `${spec.title}: ${firstLine(error)}`,
      );
    }
  }
}

if (failures.length > 0) console.log(`\n${failures.map((line) => `  ✘ ${line}`).join("\n")}`);
console.log(`\nopledger tests (${process.argv[2] ?? "?"} s): ${passed} passed, ${failed} failed, ${skipped} skipped`);
