// `npm run opledger -- <command>`: administration from the shell (first admin user and API key, key revocation, audit
// check).
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { API_SCOPES, createApiKey, revokeApiKey, type ApiScope } from "../lib/auth/api-keys";
import { ROLES, type Role } from "../lib/auth/roles";
import { createUser } from "../lib/auth/users";
import { parseEnv } from "../lib/config/env";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../lib/ledger/actor";
import { verifyAuditChain } from "@/lib/ledger/audit/verify-chain";
import { prepareDatabase } from "./prepare-database";

const CLI_ACTOR: Actor = { type: "system", id: "system", label: "opledger CLI" };

const USAGE = `usage: npm run opledger -- <command> [options]
  create-api-key --name NAME --scopes agent[,operator][,admin]   prints the key once
  list-api-keys
  revoke-api-key --id ID
  create-user --email EMAIL --role viewer|operator|admin [--name NAME] [--password PASSWORD]
                                                                  without --password one is generated and printed once
  verify-audit                                                    recomputes the audit hash chain; exit code 1 if it is broken`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function parseScopes(raw: string | undefined): ApiScope[] {
  const scopes = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = scopes.filter((s) => !(API_SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || bad.length > 0)
    fail(`--scopes must be a comma-separated list of ${API_SCOPES.join(", ")}`);
  return scopes as ApiScope[];
}

async function run(ledger: Ledger, command: string, values: Record<string, string | undefined>): Promise<void> {
  const now = new Date();
  switch (command) {
    case "create-api-key": {
      if (!values.name) fail("--name is required");
      const { key, record } = await createApiKey(
        ledger,
        { name: values.name, scopes: parseScopes(values.scopes) },
        CLI_ACTOR,
        now,
      );
      console.log(`created API key ${record.id} "${record.name}" with scopes ${record.scopes}`);
      console.log(`\n  ${key}\n\nThis is the only time the key is shown; store it in your secret manager now.`);
      return;
    }
    case "list-api-keys": {
      for (const k of await ledger.db.apiKey.findMany({ orderBy: { createdAt: "asc" } })) {
        console.log(
          `${k.id}  ${k.prefix}…  ${k.name}  [${k.scopes}]  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active"}  last used ${k.lastUsedAt?.toISOString() ?? "never"}`,
        );
      }
      return;
    }
    case "revoke-api-key": {
      if (!values.id) fail("--id is required");
      await revokeApiKey(ledger, values.id, CLI_ACTOR, now);
      console.log(`revoked API key ${values.id}`);
      return;
    }
    case "create-user": {
      if (!values.email) fail("--email is required");
      const role = values.role as Role | undefined;
      if (!role || !(ROLES as readonly string[]).includes(role)) fail(`--role must be one of ${ROLES.join(", ")}`);
      if (values.password !== undefined && values.password.length < 12)
        fail("--password must be at least 12 characters");
      const password = values.password ?? randomBytes(15).toString("base64url");
      const user = await createUser(
        ledger,
        { email: values.email, name: values.name ?? values.email, role, password },
        CLI_ACTOR,
        now,
      );
      console.log(`created ${user.role} ${user.email}`);
      if (values.password === undefined) console.log(`password (shown once): ${password}`);
      return;
    }
    case "verify-audit": {
      const report = await verifyAuditChain(ledger);
      const before =
        report.unchained > 0 ? ` (and ${report.unchained} older events written before the chain began)` : "";
      if (report.ok) {
        console.log(
          `audit chain intact: ${report.chained} events${before}; head ${report.head.seq} ${report.head.hash}`,
        );
        console.log(
          "Keep the head hash somewhere else (a ticket, a log store): it proves later that nothing before it changed.",
        );
        return;
      }
      console.error(`audit chain BROKEN: ${report.chained} chained events${before}`);
      for (const problem of report.problems) console.error(`  - ${problem}`);
      process.exitCode = 1;
      return;
    }
    default:
      fail(`unknown command ${command || "(none)"}`);
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: "string" },
      scopes: { type: "string" },
      id: { type: "string" },
      email: { type: "string" },
      role: { type: "string" },
      password: { type: "string" },
    },
  });
  const config = parseEnv(process.env);
  prepareDatabase(config.DATABASE_URL);
  const ledger = openLedger(config.DATABASE_URL);
  try {
    await run(ledger, positionals[0] ?? "", values);
  } finally {
    await ledger.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
