// The key commands of scripts/opledger.ts (create-api-key, revoke-api-key) through the same library functions and with
// the same output, minus the CLI's start-up migration: the e2e fixture falls back to this while `prisma migrate deploy`
// cannot run against a SQLite file the live server has open. Run with tsx; DATABASE_URL names the database.
import { parseArgs } from "node:util";
import { API_SCOPES, createApiKey, revokeApiKey, type ApiScope } from "../../../lib/auth/api-keys";
import { openLedger } from "@/lib/ledger/ledger";
import type { Actor } from "../../../lib/ledger/actor";

const ACTOR: Actor = { type: "system", id: "system", label: "opledger CLI (e2e)" };

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { name: { type: "string" }, scopes: { type: "string" }, id: { type: "string" } },
  });
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is required");
  const ledger = openLedger(url);
  try {
    const now = new Date();
    switch (positionals[0] ?? "") {
      case "create-api-key": {
        const scopes = (values.scopes ?? "").split(",").filter(Boolean);
        if (!values.name || scopes.length === 0 || scopes.some((s) => !(API_SCOPES as readonly string[]).includes(s))) {
          throw new Error("--name and --scopes agent[,operator][,admin] are required");
        }
        const { key, record } = await createApiKey(
          ledger,
          { name: values.name, scopes: scopes as ApiScope[] },
          ACTOR,
          now,
        );
        console.log(`created API key ${record.id} "${record.name}" with scopes ${record.scopes}`);
        console.log(`\n  ${key}\n`);
        return;
      }
      case "revoke-api-key": {
        if (!values.id) throw new Error("--id is required");
        await revokeApiKey(ledger, values.id, ACTOR, now);
        console.log(`revoked API key ${values.id}`);
        return;
      }
      default:
        throw new Error(`unknown command ${positionals[0] || "(none)"}`);
    }
  } finally {
    await ledger.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
