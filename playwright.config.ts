// Playwright: e2e specs in e2e/ against a production build served by `npm run serve`, on Debian's Chromium.
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { serverEnv } from "./e2e/fixtures/server-process";
import {
  CHROMIUM_LAUNCH_OPTIONS,
  E2E_BASE_URL,
  E2E_DATA_DIR,
  E2E_DATABASE_URL,
  E2E_PORT,
  OTLP_RECEIVER_PORT,
  OTLP_RECEIVER_URL,
  REPO_ROOT,
} from "./e2e/fixtures/test-env";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * The e2e run migrates and writes to its database, so it refuses anything but a local SQLite file or a
 * PostgreSQL server on this machine (the idea of Dub's assert-local-database.ts).
 */
export function assertLocalDatabase(url: string): void {
  if (url.startsWith("file:")) return;
  if (/^postgres(ql)?:\/\//.test(url)) {
    let host = "";
    try {
      host = new URL(url).hostname;
    } catch {
      // Falls through to the error below.
    }
    if (LOCAL_HOSTS.has(host)) return;
  }
  const redacted = url.replace(/\/\/[^@/]*@/, "//***@");
  throw new Error(
    `Refusing to run e2e tests against ${redacted}: the e2e database must be a local file: URL or a PostgreSQL server on localhost.`,
  );
}

// OPLEDGER_E2E_DATABASE_URL lets CI point the server at the throwaway PostgreSQL cluster; the default is a fresh SQLite
// file.
const databaseUrl = process.env.OPLEDGER_E2E_DATABASE_URL ?? E2E_DATABASE_URL;
assertLocalDatabase(databaseUrl);

const isCI = Boolean(process.env.CI);

export default defineConfig({
  testDir: "e2e",
  // Specs only: e2e/ also holds vitest tests of the harness's own servers (*.test.ts, run by the unit suite).
  testMatch: "**/*.spec.ts",
  outputDir: "test-results/artifacts",
  fullyParallel: false,
  forbidOnly: isCI,
  // One retry on CI, where the machine is shared and a wait can miss its window; a test that passed only on its retry
  // is still named in npm test's closing lines ("flaky"), so the signal is kept without refusing the landing.
  retries: isCI ? 1 : 0,
  workers: isCI ? 1 : undefined,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL: E2E_BASE_URL,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: CHROMIUM_LAUNCH_OPTIONS,
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: [
    // The OTLP/HTTP receiver the servers export their spans to (serverEnv sets OTEL_EXPORTER_OTLP_ENDPOINT to it).
    {
      command: `${JSON.stringify(path.join("node_modules", ".bin", "tsx"))} e2e/otlp/main.ts ${OTLP_RECEIVER_PORT}`,
      cwd: REPO_ROOT,
      url: `${OTLP_RECEIVER_URL}/health`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      command: `rm -rf ${JSON.stringify(path.relative(REPO_ROOT, E2E_DATA_DIR))} && npm run serve`,
      cwd: REPO_ROOT,
      url: `${E2E_BASE_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: "pipe",
      stderr: "pipe",
      env: serverEnv(E2E_PORT, databaseUrl),
    },
  ],
});
