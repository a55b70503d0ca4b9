// TEMPORARY (ops helper, to be deleted): runs specs against an already running dev server.
import { defineConfig, devices } from "@playwright/test";
export default defineConfig({
  testDir: "e2e",
  outputDir: "/tmp/opsdev/artifacts",
  fullyParallel: false,
  retries: 0,
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: "http://127.0.0.1:3231",
    screenshot: "only-on-failure",
    launchOptions: { executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
});
