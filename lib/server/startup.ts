// Start-up of a server process, once: validated config, SQLite durability settings, bootstrap credentials, the recovery sweep.
import { ensureBootstrapApiKey } from "@/lib/auth/api-keys";
import { ensureAdminUser } from "@/lib/auth/users";
import { sqliteFilePath } from "@/lib/config/database-url";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db";
import { applySqliteSettings } from "@/lib/sqlite-settings";
import { startSweepLoop } from "./sweep-loop";

const globalForStartup = globalThis as unknown as { opledgerStarted?: Promise<void> };

async function start(): Promise<void> {
  const config = env();
  const client = db();
  const file = sqliteFilePath(config.DATABASE_URL);
  if (file) {
    const s = await applySqliteSettings(client);
    console.log(`opledger: SQLite ${file}: journal_mode=${s.journalMode} synchronous=${s.synchronous} busy_timeout=${s.busyTimeoutMs}ms`);
  } else {
    await client.$queryRawUnsafe("SELECT 1");
    console.log("opledger: PostgreSQL connected");
  }
  const now = new Date();
  if (config.OPLEDGER_BOOTSTRAP_API_KEY && (await ensureBootstrapApiKey(client, config.OPLEDGER_BOOTSTRAP_API_KEY, now))) {
    console.log("opledger: registered the bootstrap API key from OPLEDGER_BOOTSTRAP_API_KEY (scopes agent, operator, admin)");
  }
  if (config.OPLEDGER_ADMIN_EMAIL && config.OPLEDGER_ADMIN_PASSWORD) {
    if (await ensureAdminUser(client, config.OPLEDGER_ADMIN_EMAIL, config.OPLEDGER_ADMIN_PASSWORD, now)) {
      console.log(`opledger: created the admin user ${config.OPLEDGER_ADMIN_EMAIL}`);
    }
  }
  startSweepLoop(client, config.OPLEDGER_SWEEP_INTERVAL_MS);
  console.log(`opledger: recovery sweep every ${config.OPLEDGER_SWEEP_INTERVAL_MS} ms`);
}

/** Idempotent: the first caller starts, everyone else awaits the same start. */
export function ensureStarted(): Promise<void> {
  globalForStartup.opledgerStarted ??= start();
  return globalForStartup.opledgerStarted;
}
