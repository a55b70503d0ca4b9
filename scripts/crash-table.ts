// `npm run crash-table`: copies the crash tables the last e2e runs measured (test-results/crash-windows-*.json: each
// table on each engine that ran) into docs/crash-windows.md, so the published tables are never copied by hand.
import fs from "node:fs";
import { CRASH_DOC, readResults, withResult } from "../e2e/crash/doc";

const results = readResults();
if (results.length === 0) {
  process.stderr.write("crash-table: no test-results/crash-windows-*.json; run the e2e/crash specs first\n");
  process.exit(1);
}
fs.writeFileSync(
  CRASH_DOC,
  results.reduce((doc, result) => withResult(doc, result), fs.readFileSync(CRASH_DOC, "utf8")),
);
for (const r of results) process.stdout.write(`crash-table: ${r.title} on ${r.engine} (${r.at}) written\n`);
