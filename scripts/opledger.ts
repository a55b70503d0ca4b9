// `npm run opledger -- <command>`: administration from the shell (first admin user and API key, key revocation, audit
// check, the audit signing key).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { API_SCOPES, createApiKey, PERSON_SCOPES, revokeApiKey, type ApiScope } from "../lib/platform/auth/api-keys";
import { ROLES, type Role } from "../lib/platform/auth/roles";
import { createUser } from "../lib/platform/auth/users";
import { parseEnv } from "../lib/platform/config/env";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../lib/ledger/actor";
import {
  generateSigningKey,
  parseVerifyingKey,
  SigningKeyError,
  type VerifyingKey,
} from "@/lib/ledger/audit/signing-key";
import { verifyAuditChain, type ExpectedHead, type VerifyAuditOptions } from "@/lib/ledger/audit/verify-chain";
import { runStdioBridgeCommand } from "@/lib/agent-plane/mcp/bridge/stdio-bridge";
import { prepareDatabase } from "./prepare-database";

const CLI_ACTOR: Actor = { type: "system", id: "system", label: "opledger CLI" };

const USAGE = `usage: npm run opledger -- <command> [options]
  create-api-key --name NAME --scopes agent|metrics|operator|admin[,...] [--owner EMAIL]
                                              prints the key once; --owner (required with operator or admin) binds the
                                              key to that person, and it acts as them
  list-api-keys
  revoke-api-key --id ID
  create-user --email EMAIL --role viewer|operator|admin [--name NAME] [--password PASSWORD]
                                              without --password one is generated and printed once
  verify-audit [--public-key FILE|BASE64]... [--require-checkpoint] [--expect-head [SEQ:]HASH]
                                              recomputes the audit hash chain; with --public-key also checks every
                                              signed checkpoint against it (no checkpoints: a warning, or a failure
                                              with --require-checkpoint); with --expect-head the chain must still hold
                                              that head; exit code 1 if anything fails
  audit-keygen [--out DIR]                    makes an Ed25519 key pair for signed audit checkpoints and prints it
                                              (with --out: writes it to DIR, created 0700, the private key 0600)
  mcp                                         a stdio MCP server relaying to the gateway at OPLEDGER_URL/mcp (default
                                              http://127.0.0.1:3000) with OPLEDGER_API_KEY; run it as
                                              \`npm run -s opledger -- mcp\` so npm prints nothing on stdout`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function parseCommandLine() {
  return parseArgs({
    allowPositionals: true,
    options: {
      name: { type: "string" },
      scopes: { type: "string" },
      owner: { type: "string" },
      id: { type: "string" },
      email: { type: "string" },
      role: { type: "string" },
      password: { type: "string" },
      "public-key": { type: "string", multiple: true },
      "require-checkpoint": { type: "boolean" },
      "expect-head": { type: "string" },
      out: { type: "string" },
    },
  });
}

type Values = ReturnType<typeof parseCommandLine>["values"];

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

/** The person an operator or admin key acts as, by email; agent and metrics keys act as themselves. */
async function keyOwner(ledger: Ledger, scopes: ApiScope[], owner: string | undefined): Promise<string | null> {
  const actsAsPerson = scopes.some((s) => PERSON_SCOPES.includes(s));
  if (actsAsPerson && !owner)
    fail("--owner EMAIL is required with the operator and admin scopes: such a key acts as that person");
  if (!actsAsPerson && owner)
    fail("--owner is only for operator and admin keys: an agent or metrics key acts as itself, so leave it out");
  if (!owner) return null;
  const email = owner.trim().toLowerCase();
  const user = await ledger.db.user.findUnique({ where: { email }, select: { id: true } });
  if (!user) throw new Error(`There is no user ${email}: create them first with create-user, then their key.`);
  return user.id;
}

/** `verify` carries verify-audit's options, read before the database was opened. */
async function run(ledger: Ledger, command: string, values: Values, verify: VerifyAuditOptions): Promise<void> {
  const now = new Date();
  switch (command) {
    case "create-api-key": {
      if (!values.name) fail("--name is required");
      const scopes = parseScopes(values.scopes);
      const ownerUserId = await keyOwner(ledger, scopes, values.owner);
      const { key, record } = await createApiKey(ledger, { name: values.name, scopes, ownerUserId }, CLI_ACTOR, now);
      const owner = ownerUserId ? ` for ${values.owner?.trim().toLowerCase()}` : "";
      console.log(`created API key ${record.id} "${record.name}" with scopes ${record.scopes}${owner}`);
      console.log(`\n  ${key}\n\nThis is the only time the key is shown; store it in your secret manager now.`);
      return;
    }
    case "list-api-keys": {
      for (const k of await ledger.db.apiKey.findMany({ orderBy: { createdAt: "asc" } })) {
        console.log(
          `${k.id}  ${k.prefix}…  ${k.name}  [${k.scopes}]  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active"} ` +
            ` last used ${k.lastUsedAt?.toISOString() ?? "never"}`,
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
      if (values.password !== undefined && (values.password.length < 12 || values.password.length > 256))
        fail("--password must be 12 to 256 characters");
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
      await verifyAudit(ledger, verify);
      return;
    }
    default:
      fail(`unknown command ${command || "(none)"}`);
  }
}

/** A public key given as a file, or inline as base64 (or PEM). */
function readVerifyingKey(arg: string): VerifyingKey {
  const isFile = fs.existsSync(arg) && fs.statSync(arg).isFile();
  try {
    return parseVerifyingKey(
      isFile ? fs.readFileSync(arg, "utf8") : arg,
      isFile ? `--public-key ${arg}` : "--public-key",
    );
  } catch (error) {
    if (error instanceof SigningKeyError) fail(error.message);
    throw error;
  }
}

function parseExpectedHead(arg: string): ExpectedHead {
  const match = /^(?:(\d+):)?([0-9a-f]{64})$/i.exec(arg.trim());
  if (!match?.[2]) fail("--expect-head must be a head's hash (64 hex digits), or its seq and hash as SEQ:HASH");
  return { seq: match[1] === undefined ? null : Number(match[1]), hash: match[2].toLowerCase() };
}

/** The options of verify-audit, checked before the database is opened. */
function verifyOptions(values: Values): VerifyAuditOptions {
  const keys = values["public-key"] ?? [];
  const requireCheckpoint = values["require-checkpoint"] === true;
  if (requireCheckpoint && keys.length === 0)
    fail("--require-checkpoint needs --public-key to check the checkpoints with");
  const expectHead = values["expect-head"];
  return {
    ...(keys.length > 0 ? { verifyingKeys: keys.map(readVerifyingKey) } : {}),
    requireCheckpoint,
    ...(expectHead !== undefined ? { expectHead: parseExpectedHead(expectHead) } : {}),
  };
}

async function verifyAudit(ledger: Ledger, options: VerifyAuditOptions): Promise<void> {
  const report = await verifyAuditChain(ledger, options);
  const before = report.unchained > 0 ? ` (and ${report.unchained} older events written before the chain began)` : "";
  if (!report.ok) {
    console.error(`audit chain BROKEN: ${report.chained} chained events${before}`);
    for (const problem of report.problems) console.error(`  - ${problem}`);
    process.exitCode = 1;
    return;
  }
  console.log(`audit chain intact: ${report.chained} events${before}; head ${report.head.seq} ${report.head.hash}`);
  const newest = report.checkpoints?.newest;
  if (report.checkpoints && newest) {
    const past = report.head.seq - newest.seq;
    console.log(
      `signed checkpoints: ${report.checkpoints.checked} checked, every one signed and matching the chain; ` +
        `newest ${newest.seq} ${newest.hash} signed ${newest.createdAt.toISOString()} by key ` +
        `${newest.keyId.slice(0, 16)}…; the head is ${past} event${past === 1 ? "" : "s"} past it`,
    );
  }
  if (options.expectHead) console.log(`the expected head ${options.expectHead.hash} is still in the chain`);
  for (const warning of report.warnings) console.warn(`warning: ${warning}`);
  console.log(
    "Keep the head hash somewhere else (a ticket, a log store): it proves later that nothing before it changed.",
  );
}

/** Writes `contents` to a new file (never over an existing one) with the given mode. */
function writeNewFile(file: string, contents: string, mode: number): void {
  fs.writeFileSync(file, contents, { flag: "wx", mode });
  fs.chmodSync(file, mode);
}

/** audit-keygen: needs no database, and writes the keys nowhere but stdout or the directory it is given. */
function auditKeygen(out: string | undefined): void {
  const key = generateSigningKey();
  if (out === undefined) {
    console.log("Private key: set it as OPLEDGER_AUDIT_SIGNING_KEY on the server (a secret; never in the database):");
    console.log(`\nOPLEDGER_AUDIT_SIGNING_KEY=${key.privateKeyBase64}\n`);
    console.log("Public key: give it to `verify-audit --public-key` (not secret; keep a copy away from the server):");
    console.log(`\n${key.publicKeyBase64}\n`);
    console.log(`key id ${key.keyId}`);
    return;
  }
  const dir = path.resolve(out);
  if (fs.existsSync(dir)) {
    const mode = fs.statSync(dir).mode & 0o777;
    if (mode & 0o077)
      fail(
        `--out ${out} can be read by others (mode ${mode.toString(8)}): give a new directory, or chmod 700 it first`,
      );
  } else {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  }
  const privateFile = path.join(dir, "audit-signing-key.pem");
  const publicFile = path.join(dir, "audit-signing-key.pub.pem");
  for (const file of [privateFile, publicFile])
    if (fs.existsSync(file)) fail(`${file} exists already: audit-keygen never overwrites a key`);
  writeNewFile(privateFile, key.privateKeyPem, 0o600);
  writeNewFile(publicFile, key.publicKeyPem, 0o644);
  console.log(`private key: ${privateFile} (mode 600; its contents, PEM, go into OPLEDGER_AUDIT_SIGNING_KEY)`);
  console.log(`public key:  ${publicFile} (for verify-audit --public-key ${publicFile})`);
  console.log(`\npublic key as one line: ${key.publicKeyBase64}\nkey id ${key.keyId}`);
}

async function main(): Promise<void> {
  const { positionals, values } = parseCommandLine();
  const command = positionals[0] ?? "";
  if (command === "audit-keygen") {
    auditKeygen(values.out);
    return;
  }
  // The bridge opens no database; it relays until the client hangs up, and stdin's listener would keep us running.
  if (command === "mcp") process.exit(await runStdioBridgeCommand(process.env));
  // Bad arguments (an unreadable key, a malformed head) fail before the database is prepared.
  const verify = command === "verify-audit" ? verifyOptions(values) : {};
  const config = parseEnv(process.env);
  prepareDatabase(config.DATABASE_URL);
  const ledger = openLedger(config.DATABASE_URL);
  try {
    await run(ledger, command, values, verify);
  } finally {
    await ledger.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
