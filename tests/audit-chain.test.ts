// The audit hash chain on both engines: concurrent commands extend one unbroken chain, and verify-audit finds every
// kind of tampering.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifyAuditChain } from "@/lib/ledger/audit/verify-chain";
import { planOperation } from "@/lib/ledger/commands/plan";
import { agent, at, withContract } from "./helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "./helpers/lifecycle";
import { testPostgresUrl } from "./helpers/pg-databases";
import { createTestDb, type TestDb } from "./helpers/test-db";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
});
afterEach(async () => t.close());

async function lifecycles(count: number, from = 0): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const i = from + n;
      const { id, fence } = await planAndClaim(
        t.ledger,
        { tool: "payments.charge", args: { i }, idempotencyKey: `k${i}` },
        at(i),
        `w${i}`,
      );
      await dispatch(t.ledger, id, fence, at(i + 1));
      await outcome(t.ledger, id, { fence, result: "confirmed", providerId: `ch_${i}` }, at(i + 2));
    }),
  );
}

/**
 * The triggers forbid tampering, so the tests first do what an attacker with the database's owner rights would: drop
 * them.
 */
async function dropAppendOnlyGuards(): Promise<void> {
  if (testPostgresUrl()) {
    await t.db.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`);
  } else {
    await t.db.$executeRawUnsafe(`DROP TRIGGER "AuditEvent_no_update"`);
    await t.db.$executeRawUnsafe(`DROP TRIGGER "AuditEvent_no_delete"`);
  }
}

describe("an untouched log", () => {
  it(
    "verifies, with one contiguous chain across concurrent commands, ending at the head",
    { timeout: 30_000 },
    async () => {
      await lifecycles(8);
      const events = await t.db.auditEvent.findMany({ orderBy: { seq: "asc" } });
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      const report = await verifyAuditChain(t.ledger);
      expect(report).toMatchObject({ ok: true, chained: events.length, unchained: 0, problems: [] });
      expect(report.head).toEqual({ seq: events.length, hash: events.at(-1)?.hash });
    },
  );

  it("verifies while commands keep appending, as on a live server", { timeout: 30_000 }, async () => {
    await lifecycles(2);
    const appending = lifecycles(12, 2);
    const reports = await Promise.all(Array.from({ length: 6 }, () => verifyAuditChain(t.ledger)));
    await appending;
    for (const report of reports) expect(report.problems).toEqual([]);
    expect(await verifyAuditChain(t.ledger)).toMatchObject({ ok: true, chained: await t.db.auditEvent.count() });
  });

  it("verifies an empty log", async () => {
    const fresh = await createTestDb();
    try {
      expect(await verifyAuditChain(fresh.ledger)).toMatchObject({ ok: true, chained: 0, head: { seq: 0 } });
    } finally {
      await fresh.close();
    }
  });

  it("keeps a failed command out of the chain: its transaction rolls back the head too", async () => {
    await lifecycles(2);
    const before = await verifyAuditChain(t.ledger);
    await expect(planOperation(t.ledger, { tool: "no.such.tool", args: {} }, agent, at(10))).rejects.toThrow(
      /no contract/,
    );
    expect(await verifyAuditChain(t.ledger)).toEqual(before);
  });
});

describe("tampering", () => {
  beforeEach(async () => {
    await lifecycles(4);
    await dropAppendOnlyGuards();
  });

  it("finds a changed event", async () => {
    await t.db.$executeRawUnsafe(`UPDATE "AuditEvent" SET "reason" = 'nothing to see' WHERE "seq" = 5`);
    const report = await verifyAuditChain(t.ledger);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([expect.stringMatching(/^event 5 \(.*\) does not match its hash/)]);
  });

  it("finds a removed event", async () => {
    await t.db.$executeRawUnsafe(`DELETE FROM "AuditEvent" WHERE "seq" = 3`);
    const report = await verifyAuditChain(t.ledger);
    expect(report.problems).toEqual([
      expect.stringMatching(/^events 3 to 3 are missing/),
      expect.stringMatching(/^event 4 .* does not match/),
    ]);
  });

  it("finds a removed tail", async () => {
    const last = await t.db.auditEvent.count();
    await t.db.$executeRawUnsafe(`DELETE FROM "AuditEvent" WHERE "seq" = ${last}`);
    const report = await verifyAuditChain(t.ledger);
    expect(report.problems).toEqual([
      expect.stringMatching(
        new RegExp(`^the head says the chain ends at event ${last} .* but the last event is ${last - 1}`),
      ),
    ]);
  });

  it("finds an event chained past the head without moving it", async () => {
    const last = await t.db.auditEvent.findFirstOrThrow({ orderBy: { seq: "desc" } });
    await t.db.auditEvent.create({
      data: { ...last, id: "forged", seq: (last.seq ?? 0) + 1, reason: "added later" },
    });
    const report = await verifyAuditChain(t.ledger);
    expect(report.problems).toEqual([
      expect.stringMatching(
        new RegExp(`^events ${(last.seq ?? 0) + 1} to ${(last.seq ?? 0) + 1} are chained past the head`),
      ),
    ]);
  });

  it("finds an event inserted around the chain", async () => {
    await t.db.auditEvent.create({
      data: {
        id: "forged",
        subjectType: "operation",
        subjectId: "x",
        actorType: "user",
        actorId: "mallory",
        action: "operation.approved",
        createdAt: at(60_000),
      },
    });
    const report = await verifyAuditChain(t.ledger);
    expect(report.problems).toEqual([expect.stringMatching(/^1 events without a place in the chain are younger/)]);
  });
});

it("refuses to move the head back or remove it", async () => {
  await lifecycles(1);
  await expect(t.db.auditChain.update({ where: { id: 1 }, data: { seq: 0 } })).rejects.toThrow();
  await expect(t.db.$executeRawUnsafe(`DELETE FROM "AuditChain"`)).rejects.toThrow();
  expect(await verifyAuditChain(t.ledger)).toMatchObject({ ok: true });
});
