// The audit trail is append-only in the database itself, on both engines: UPDATE and DELETE are refused whoever sends
// them.
import { afterEach, beforeEach, expect, it } from "vitest";
import { SYSTEM_ACTOR } from "@/lib/ledger/actor";
import { T0 } from "./helpers/ledger-fixtures";
import { testPostgresUrl } from "./helpers/pg-databases";
import { createTestDb, type TestDb } from "./helpers/test-db";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await t.ledger.store.transaction((tx) =>
    tx.appendAudit([
      {
        subjectType: "operation",
        subjectId: "op1",
        actor: SYSTEM_ACTOR,
        action: "operation.planned",
        toPhase: "PLANNED",
        at: T0,
      },
    ]),
  );
});
afterEach(async () => t.close());

it("accepts new audit records", async () => {
  expect(await t.db.auditEvent.count()).toBe(1);
});

/**
 * What the database said: Prisma's SQLite adapter files a trigger's abort as a foreign-key error and keeps the text in
 * meta.
 */
async function refusal(change: Promise<unknown>): Promise<string> {
  try {
    await change;
    return "accepted";
  } catch (error) {
    return `${error instanceof Error ? error.message : String(error)} ${JSON.stringify((error as { meta?: unknown }).meta ?? null)}`;
  }
}

it.each([
  ["a Prisma update", (c: TestDb["db"]) => c.auditEvent.updateMany({ data: { reason: "rewritten" } })],
  ["a Prisma delete", (c: TestDb["db"]) => c.auditEvent.deleteMany({})],
  ["a raw UPDATE", (c: TestDb["db"]) => c.$executeRawUnsafe(`UPDATE "AuditEvent" SET "reason" = 'rewritten'`)],
  ["a raw DELETE", (c: TestDb["db"]) => c.$executeRawUnsafe(`DELETE FROM "AuditEvent"`)],
])("refuses %s", async (_, change) => {
  expect(await refusal(change(t.db))).toMatch(/AuditEvent is append-only: (UPDATE|DELETE) refused/);
  const [event] = await t.db.auditEvent.findMany();
  expect(event).toMatchObject({ subjectId: "op1", reason: null });
});

it.skipIf(!testPostgresUrl())("refuses TRUNCATE on PostgreSQL, which skips row triggers", async () => {
  expect(await refusal(t.db.$executeRawUnsafe(`TRUNCATE "AuditEvent"`))).toMatch(
    /AuditEvent is append-only: TRUNCATE refused/,
  );
  expect(await t.db.auditEvent.count()).toBe(1);
});
