// Vitest: unit and integration tests in Node, `@/` resolving to the repo root, and console noise failing a test.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  resolve: {
    // Mirrors tsconfig's "@/*": ["./*"]; a regex so scoped packages such as @prisma/client are left alone.
    alias: [{ find: /^@\//, replacement: root }],
  },
  test: {
    include: [
      "lib/**/*.test.ts",
      "components/**/*.test.ts",
      "scripts/**/*.test.ts",
      "tests/**/*.test.ts",
      "e2e/**/*.test.ts",
    ],
    environment: "node",
    setupFiles: ["./tests/setup/fail-on-console.ts"],
    globalSetup: ["./tests/setup/db-template.ts"],
    // Forks isolate native modules (better-sqlite3) and per-worker SQLite files better than threads.
    pool: "forks",
    // Tests that start processes (upstreams, servers) need more than the 5 s default on a busy 2-core machine.
    testTimeout: 15_000,
  },
});
