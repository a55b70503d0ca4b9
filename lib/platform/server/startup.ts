// Start-up of a server process, once: validated config, SQLite durability settings, bootstrap credentials, the recovery
// sweep, the demo world.
import path from "node:path";
import { ensureBootstrapApiKey } from "@/lib/platform/auth/api-keys";
import { ensureAdminUser } from "@/lib/platform/auth/users";
import { sqliteFilePath } from "@/lib/platform/config/database-url";
import { env, type Env } from "@/lib/platform/config/env";
import { ledger, type Ledger } from "@/lib/ledger/ledger";
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import { assertUpstreamsFile, closeUpstreams } from "@/lib/services/upstreams/upstreams";
import { startBulkRunner } from "@/lib/ledger/bulk/runner";
import { startNotifier } from "@/lib/services/notify/notifier";
import { startSweepLoop } from "./sweep-loop";
import { startAuditCheckpoints } from "./audit-checkpoints";

const globalForStartup = globalThis as unknown as { opledgerStarted?: Promise<void> };

/** Where the demo agent reaches this server: the bound host, or loopback when it listens on every interface. */
function localUrl(config: Env): string {
  const host = config.HOSTNAME && !["0.0.0.0", "::", "[::]"].includes(config.HOSTNAME) ? config.HOSTNAME : "127.0.0.1";
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${config.PORT}`;
}

/**
 * OPLEDGER_DEMO=on: providers and the demo agent with the console. A demo that cannot start never stops the product.
 */
async function startDemo(config: Env, ledger: Ledger): Promise<void> {
  try {
    const { demoEnv } = await import("@/lib/demo/config");
    const { startDemoWorld } = await import("@/lib/demo/supervisor");
    const { demoDataDir } = await import("@/lib/demo/data-dir");
    const world = await startDemoWorld({
      ledger,
      ledgerUrl: localUrl(config),
      env: demoEnv(),
      stateFile: path.join(demoDataDir(config.DATABASE_URL), "demo-providers.jsonl"),
      rootDir: process.cwd(),
    });
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void world.stop());
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    console.error(`opledger: the demo world did not start (the console and API run without it): ${why}`);
  }
}

async function start(): Promise<void> {
  const config = env();
  // A bad upstreams file stops start-up like a bad variable; the upstreams themselves start on first use.
  assertUpstreamsFile(config.OPLEDGER_MCP_UPSTREAMS);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void closeUpstreams());
  const shared = ledger();
  const file = sqliteFilePath(config.DATABASE_URL);
  if (file) {
    const s = await applySqliteSettings(shared.db);
    console.log(
      `opledger: SQLite ${file}: journal_mode=${s.journalMode} synchronous=${s.synchronous} busy_timeout=${s.busyTimeoutMs}ms`,
    );
  } else {
    await shared.db.$queryRawUnsafe("SELECT 1");
    console.log("opledger: PostgreSQL connected");
  }
  const now = new Date();
  if (
    config.OPLEDGER_BOOTSTRAP_API_KEY &&
    (await ensureBootstrapApiKey(shared, config.OPLEDGER_BOOTSTRAP_API_KEY, now))
  ) {
    console.log(
      "opledger: registered the bootstrap API key from OPLEDGER_BOOTSTRAP_API_KEY (scopes agent, operator, admin)",
    );
  }
  if (config.OPLEDGER_ADMIN_EMAIL && config.OPLEDGER_ADMIN_PASSWORD) {
    if (await ensureAdminUser(shared, config.OPLEDGER_ADMIN_EMAIL, config.OPLEDGER_ADMIN_PASSWORD, now)) {
      console.log(`opledger: created the admin user ${config.OPLEDGER_ADMIN_EMAIL}`);
    }
  }
  startAuditCheckpoints(shared, config);
  startSweepLoop(shared, config.OPLEDGER_SWEEP_INTERVAL_MS);
  console.log(`opledger: recovery sweep and auto-reconcile every ${config.OPLEDGER_SWEEP_INTERVAL_MS} ms`);
  // Background work that sends requests or acts on operations: never while `next build` prerenders.
  if (process.env.NEXT_PHASE !== "phase-production-build") {
    startNotifier(shared);
    startBulkRunner(shared);
  }
  // Never during `next build`, which may load the server code to prerender pages.
  if (config.OPLEDGER_DEMO === "on" && process.env.NEXT_PHASE !== "phase-production-build")
    await startDemo(config, shared);
}

/** Idempotent: the first caller starts, everyone else awaits the same start. */
export function ensureStarted(): Promise<void> {
  globalForStartup.opledgerStarted ??= start();
  return globalForStartup.opledgerStarted;
}
