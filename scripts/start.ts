// `npm start`: the one command for a laptop — builds if needed, migrates SQLite, seeds the demo world (its desk behind
// the MCP gateway too), creates an admin, serves the console on 127.0.0.1 (HOSTNAME to change it), with data files
// readable by their owner only.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createUser } from "../lib/platform/auth/users";
import { parseEnv, type Env } from "../lib/platform/config/env";
import { openLedger } from "@/lib/ledger/ledger";
import { demoPortClash, demoEnv } from "../lib/demo/config";
import { demoDataDir } from "../lib/demo/data-dir";
import { writeDemoUpstreamsFile } from "../lib/demo/mcp/demo-upstreams";
import { seedDemo } from "../lib/demo/seed";
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import { launchServer, publicUrl } from "./launch";
import { createFilesOwnerOnly, prepareDatabase } from "./prepare-database";
import { buildIsFresh } from "./build-freshness";

function buildIfStale(): void {
  if (buildIsFresh(process.env.NEXT_DIST_DIR || ".next")) return;
  console.log("opledger: building the console (first start or changed sources; about a minute)…");
  // A production build: never one with the test-only hooks (scripts/build-freshness.ts).
  const result = spawnSync("npm", ["run", "build"], {
    stdio: "inherit",
    env: { ...process.env, OPLEDGER_TEST_HOOKS: "" },
  });
  if (result.status !== 0) throw new Error("opledger cannot start: the build failed (see above).");
}

/**
 * The server's environment for the gateway: with the demo and no upstreams file of the user's own, the demo's file
 * (the desk), which the server reads at start-up as OPLEDGER_MCP_UPSTREAMS.
 */
function demoUpstreamsEnv(config: Env): Record<string, string> {
  if (config.OPLEDGER_DEMO !== "on" || config.OPLEDGER_MCP_UPSTREAMS) return {};
  const file = writeDemoUpstreamsFile(demoDataDir(config.DATABASE_URL), { rootDir: path.resolve(__dirname, "..") });
  return { OPLEDGER_MCP_UPSTREAMS: file };
}

async function main(): Promise<void> {
  process.env.OPLEDGER_DEMO ??= "on";
  // The demo's providers listen on loopback, which outbound requests reach only when private addresses are allowed.
  if (process.env.OPLEDGER_DEMO === "on") process.env.OPLEDGER_OUTBOUND_ALLOW_PRIVATE ??= "on";
  const config = parseEnv(process.env);
  const clash = config.OPLEDGER_DEMO === "on" ? demoPortClash(config.PORT, demoEnv()) : null;
  if (clash) throw new Error(clash);
  buildIfStale();
  createFilesOwnerOnly();
  prepareDatabase(config.DATABASE_URL);
  const serverEnv = demoUpstreamsEnv(config);
  const ledger = openLedger(config.DATABASE_URL);
  if (config.DATABASE_URL.startsWith("file:")) await applySqliteSettings(ledger.db);
  let credentials: string | null = null;
  if (!config.OPLEDGER_ADMIN_EMAIL && (await ledger.db.user.count()) === 0) {
    const password = randomBytes(12).toString("base64url");
    await createUser(
      ledger,
      { email: "admin@opledger.local", name: "Administrator", role: "admin", password },
      { type: "system", id: "system", label: "first start" },
      new Date(),
    );
    credentials = `admin@opledger.local / ${password}`;
  }
  if (config.OPLEDGER_DEMO === "on") {
    const seeded = await seedDemo(ledger, new Date());
    if (seeded.operations > 0)
      console.log(`opledger: demo world seeded: ${seeded.contracts} contracts, ${seeded.operations} operations`);
  }
  await ledger.close();
  console.log(`\n  opledger console: ${publicUrl(config)}`);
  if (credentials) console.log(`  first admin (shown once, change it in Admin): ${credentials}`);
  console.log("");
  launchServer(config, serverEnv);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
