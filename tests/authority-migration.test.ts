// The authority migration carries existing rows over on both engines: keys bound to the admin who made them, the
// bootstrap key its own principal, operations owned by the key that planned them, four-eyes by principal id, and
// approvals already waiting given the default 24 hours.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createDatabase, databaseUrl, dropDatabase, testPostgresUrl, uniqueName } from "./helpers/pg-databases";

const AUTHORITY = "20261201220000_authority";

function scripts(dir: string): { before: string[]; authority: string } {
  const names = fs
    .readdirSync(dir)
    .filter((name) => fs.statSync(path.join(dir, name)).isDirectory())
    .sort();
  const read = (name: string) => fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
  return { before: names.filter((n) => n < AUTHORITY).map(read), authority: read(AUTHORITY) };
}

/** What an installation held before the migration: a person, three keys, and two operations with their audit. */
const LEGACY = (t: (v: boolean) => string, updatedAt: string) => `
  INSERT INTO "User" ("id", "email", "name", "role", "passwordHash") VALUES ('u-ada', 'ada@example.test', 'Ada', 'admin', 'x');
  INSERT INTO "ApiKey" ("id", "name", "prefix", "hash", "scopes", "createdBy") VALUES
    ('k-boot', 'bootstrap (OPLEDGER_BOOTSTRAP_API_KEY)', 'opl_boot', 'h1', 'agent,operator,admin', 'bootstrap'),
    ('k-ops', 'pager', 'opl_ops', 'h2', 'operator', 'ada@example.test'),
    ('k-agent', 'billing-agent', 'opl_agt', 'h3', 'agent', 'ada@example.test');
  INSERT INTO "Operation" ("id", "tool", "contractVersion", "effect", "idempotencyKey", "argsJson", "argsHash", "phase",
    "approvalRequestedBy", "updatedAt") VALUES
    ('op-wait', 'email.send', 1, 'NON_RETRYABLE', 'k1', '{}', 'a', 'AWAITING_APPROVAL', 'billing-agent (opl_agt…)', '${updatedAt}'),
    ('op-done', 'email.send', 1, 'NON_RETRYABLE', 'k2', '{}', 'a', 'CONFIRMED', NULL, '${updatedAt}');
  INSERT INTO "AuditEvent" ("id", "subjectType", "subjectId", "actorType", "actorId", "action") VALUES
    ('e1', 'operation', 'op-wait', 'api_key', 'billing-agent (opl_agt…)', 'operation.planned'),
    ('e2', 'operation', 'op-done', 'api_key', 'billing-agent (opl_agt…)', 'operation.planned');
  SELECT ${t(true)};
`;

interface Carried {
  keys: Record<string, { ownerUserId: string | null; bootstrap: boolean }>;
  ops: Record<string, { plannedByKeyId: string | null; approvalRequestedBy: string | null; expiresMs: number | null }>;
}

function expectCarriedOver(carried: Carried, updatedAtMs: number): void {
  expect(carried.keys).toEqual({
    "k-boot": { ownerUserId: null, bootstrap: true },
    "k-ops": { ownerUserId: "u-ada", bootstrap: false },
    "k-agent": { ownerUserId: null, bootstrap: false },
  });
  expect(carried.ops["op-wait"]).toEqual({
    plannedByKeyId: "k-agent",
    approvalRequestedBy: "api_key:k-agent",
    expiresMs: updatedAtMs + 24 * 3_600_000,
  });
  expect(carried.ops["op-done"]).toEqual({
    plannedByKeyId: "k-agent",
    approvalRequestedBy: "api_key:k-agent",
    expiresMs: null,
  });
}

const UPDATED_AT = "2026-11-30T12:00:00.000Z";

describe("the authority migration", () => {
  let cleanup: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await cleanup?.();
    cleanup = null;
  });

  it("carries existing rows over on SQLite", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-migration-"));
    cleanup = () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true }));
    const db = new Database(path.join(dir, "legacy.db"));
    try {
      const { before, authority } = scripts(path.join("prisma", "migrations"));
      for (const script of before) db.exec(script);
      db.exec(LEGACY((v) => (v ? "1" : "0"), UPDATED_AT.replace("Z", "+00:00")));
      db.exec(authority);
      const keys = db.prepare(`SELECT "id", "ownerUserId", "bootstrap" FROM "ApiKey"`).all() as {
        id: string;
        ownerUserId: string | null;
        bootstrap: number;
      }[];
      const ops = db
        .prepare(`SELECT "id", "plannedByKeyId", "approvalRequestedBy", "approvalExpiresAt" FROM "Operation"`)
        .all() as { id: string; plannedByKeyId: string; approvalRequestedBy: string; approvalExpiresAt: string }[];
      expectCarriedOver(
        {
          keys: Object.fromEntries(
            keys.map((k) => [k.id, { ownerUserId: k.ownerUserId, bootstrap: k.bootstrap === 1 }]),
          ),
          ops: Object.fromEntries(
            ops.map((o) => [
              o.id,
              {
                plannedByKeyId: o.plannedByKeyId,
                approvalRequestedBy: o.approvalRequestedBy,
                expiresMs: o.approvalExpiresAt ? Date.parse(o.approvalExpiresAt) : null,
              },
            ]),
          ),
        },
        Date.parse(UPDATED_AT),
      );
    } finally {
      db.close();
    }
  });

  it.skipIf(!testPostgresUrl())("carries existing rows over on PostgreSQL", async () => {
    const server = testPostgresUrl()!;
    const name = uniqueName("opledger_migration");
    await createDatabase(server, name);
    const client = new pg.Client({ connectionString: databaseUrl(server, name) });
    await client.connect();
    cleanup = async () => {
      await client.end();
      await dropDatabase(server, name);
    };
    const { before, authority } = scripts(path.join("prisma", "postgresql", "migrations"));
    for (const script of before) await client.query(script);
    await client.query(LEGACY((v) => String(v), UPDATED_AT));
    await client.query(authority);
    const keys = await client.query<{ id: string; ownerUserId: string | null; bootstrap: boolean }>(
      `SELECT "id", "ownerUserId", "bootstrap" FROM "ApiKey"`,
    );
    const ops = await client.query<{
      id: string;
      plannedByKeyId: string;
      approvalRequestedBy: string;
      approvalExpiresAt: Date | null;
    }>(`SELECT "id", "plannedByKeyId", "approvalRequestedBy", "approvalExpiresAt" FROM "Operation"`);
    expectCarriedOver(
      {
        keys: Object.fromEntries(keys.rows.map((k) => [k.id, { ownerUserId: k.ownerUserId, bootstrap: k.bootstrap }])),
        ops: Object.fromEntries(
          ops.rows.map((o) => [
            o.id,
            {
              plannedByKeyId: o.plannedByKeyId,
              approvalRequestedBy: o.approvalRequestedBy,
              // TIMESTAMP(3) without zone holds UTC; pg reads it as local time.
              expiresMs: o.approvalExpiresAt
                ? o.approvalExpiresAt.getTime() - o.approvalExpiresAt.getTimezoneOffset() * 60_000
                : null,
            },
          ]),
        ),
      },
      Date.parse(UPDATED_AT),
    );
  });
});
