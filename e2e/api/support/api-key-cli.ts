// The key commands of scripts/opledger.ts (create-api-key with --owner, revoke-api-key) through the same library
// functions and with the same output, minus the CLI's start-up migration: the e2e fixture falls back to this while
// `prisma migrate deploy` cannot run against a SQLite file the live server has open. Plus `user-id --email`, which the
// fixtures need to name people by id. Run with tsx; DATABASE_URL names the database.
import { parseArgs } from "node:util";
import {
  API_SCOPES,
  createApiKey,
  PERSON_SCOPES,
  revokeApiKey,
  type ApiScope,
} from "../../../lib/platform/auth/api-keys";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../../../lib/ledger/actor";

const ACTOR: Actor = { type: "system", id: "system", label: "opledger CLI (e2e)" };

/** The user id for an email, or an error naming the missing person (as the CLI's --owner does). */
async function userIdByEmail(ledger: Ledger, raw: string): Promise<string> {
  const email = raw.trim().toLowerCase();
  const user = await ledger.db.user.findUnique({ where: { email }, select: { id: true } });
  if (!user) throw new Error(`There is no user ${email}: create them first with create-user, then their key.`);
  return user.id;
}

/** The person an operator or admin key acts as; agent and metrics keys act as themselves (scripts/opledger.ts). */
async function keyOwner(ledger: Ledger, scopes: ApiScope[], owner: string | undefined): Promise<string | null> {
  const actsAsPerson = scopes.some((s) => PERSON_SCOPES.includes(s));
  if (actsAsPerson && !owner)
    throw new Error("--owner EMAIL is required with the operator and admin scopes: such a key acts as that person");
  if (!actsAsPerson && owner)
    throw new Error("--owner is only for operator and admin keys: an agent or metrics key acts as itself");
  return owner ? userIdByEmail(ledger, owner) : null;
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: "string" },
      scopes: { type: "string" },
      owner: { type: "string" },
      id: { type: "string" },
      email: { type: "string" },
    },
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
          throw new Error(`--name and --scopes ${API_SCOPES.join("|")}[,...] are required`);
        }
        const ownerUserId = await keyOwner(ledger, scopes as ApiScope[], values.owner);
        const { key, record } = await createApiKey(
          ledger,
          { name: values.name, scopes: scopes as ApiScope[], ownerUserId },
          ACTOR,
          now,
        );
        const owner = ownerUserId ? ` for ${values.owner?.trim().toLowerCase()}` : "";
        console.log(`created API key ${record.id} "${record.name}" with scopes ${record.scopes}${owner}`);
        console.log(`\n  ${key}\n`);
        return;
      }
      case "revoke-api-key": {
        if (!values.id) throw new Error("--id is required");
        await revokeApiKey(ledger, values.id, ACTOR, now);
        console.log(`revoked API key ${values.id}`);
        return;
      }
      case "user-id": {
        if (!values.email) throw new Error("--email is required");
        console.log(`user ${await userIdByEmail(ledger, values.email)}`);
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
