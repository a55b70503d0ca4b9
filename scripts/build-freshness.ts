// Whether a production build is newer than every source it was built from (npm start and npm run bench rebuild when
// not).
import fs from "node:fs";
import path from "node:path";

const SOURCE_DIRS = ["app", "components", "lib", "public"];
const SOURCE_FILES = [
  "next.config.js",
  "scripts/security-headers.cjs",
  "package-lock.json",
  "prisma/schema.prisma",
  "postcss.config.mjs",
  "proxy.ts",
  "instrumentation.ts",
];

function newestSourceMtime(): number {
  let newest = 0;
  const visit = (p: string): void => {
    if (!fs.existsSync(p)) return;
    const stat = fs.statSync(p);
    if (stat.isDirectory()) {
      if (path.basename(p) === "generated") return;
      for (const entry of fs.readdirSync(p)) visit(path.join(p, entry));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  [...SOURCE_DIRS, ...SOURCE_FILES].forEach(visit);
  return newest;
}

/** Whether the build was made for npm test, with the test-only hooks compiled in (next.config.js's env). */
export function buildHasTestHooks(distDir: string): boolean {
  const file = path.join(distDir, "required-server-files.json");
  if (!fs.existsSync(file)) return false;
  const recorded = JSON.parse(fs.readFileSync(file, "utf8")) as { config?: { env?: Record<string, string> } };
  return recorded.config?.env?.OPLEDGER_TEST_HOOKS === "1";
}

/** Fresh, and a production build: a test build (hooks compiled in) is never served by npm start or benchmarked. */
export function buildIsFresh(distDir: string): boolean {
  const buildId = path.join(distDir, "BUILD_ID");
  return fs.existsSync(buildId) && fs.statSync(buildId).mtimeMs >= newestSourceMtime() && !buildHasTestHooks(distDir);
}
