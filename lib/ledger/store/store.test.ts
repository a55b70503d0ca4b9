// The ledger store on both engines: what it writes Prisma reads back unchanged, its transactions commit or roll back
// whole (on SQLite several share one COMMIT), and a duplicate key is a UniqueViolation.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Operation } from "@/lib/platform/generated/prisma/client";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, planAndClaim } from "@/tests/helpers/lifecycle";
import { verifyAuditChain } from "@/lib/ledger/audit/verify-chain";
import { WriteConflict } from "./types";
import { UniqueViolation } from "./types";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "payments-api" });
});
afterEach(async () => t.close());

function draft(id: string, key: string): Operation {
  return {
    id,
    tool: "payments.charge",
    contractVersion: 1,
    effect: "IDEMPOTENT",
    idempotencyKey: key,
    argsJson: "{}",
    argsHash: "h",
    runId: null,
    agentId: "a1",
    plannedByKeyId: "k1",
    via: null,
    wouldHave: null,
    replayOf: null,
    callKey: null,
    repeatOf: null,
    deliveredAt: new Date("2026-11-30T12:00:01.003Z"),
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    phase: "PLANNED",
    attempt: 0,
    evidence: "none",
    evidenceJson: null,
    providerId: null,
    approvedAttempt: null,
    approvalRequestedBy: null,
    approvalExpiresAt: null,
    approvers: null,
    rejectionReason: null,
    lastError: null,
    firstDispatchedAt: null,
    notBefore: new Date("2026-11-30T12:00:00.007Z"),
    leaseOwner: "w1",
    leaseExpiresAt: new Date("2026-12-01T00:00:00.999Z"),
    fence: 1,
    version: 0,
    createdAt: T0,
    updatedAt: T0,
  };
}

const plannedEvent = (id: string) => ({
  subjectType: "operation" as const,
  subjectId: id,
  actor: agent,
  action: "operation.planned",
  toPhase: "PLANNED",
  at: T0,
});

describe("ledger store", () => {
  it("writes rows Prisma reads back field for field, dates to the millisecond", async () => {
    const op = draft("01STORE0000000000000000001", "k1");
    await t.ledger.store.transaction(async (tx) => {
      await tx.insertOperation(op);
      await tx.appendAudit([plannedEvent(op.id)]);
    });
    expect(await t.db.operation.findUniqueOrThrow({ where: { id: op.id } })).toEqual(op);
    expect((await t.ledger.store.operationContext(op.id))?.op).toEqual(op);
  });

  it("reads an operation with its breaker and current attempt in one query, as Prisma sees them", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k1" }, T0);
    const planned = await t.ledger.store.operationContext(id);
    expect(planned?.attempt).toBeNull();
    await dispatch(t.ledger, id, fence, at(1));
    const rows = await t.ledger.store.operationContext(id);
    expect(rows?.attempt).toEqual(
      await t.db.attempt.findUniqueOrThrow({ where: { operationId_number: { operationId: id, number: 1 } } }),
    );
    expect(rows?.dependency).toEqual(await t.db.dependency.findUniqueOrThrow({ where: { name: "payments-api" } }));
    expect(rows?.dependency?.probeInFlight).toBe(false);
    expect(await t.ledger.store.contractHead("payments.charge")).toEqual({ version: 1, dependency: rows?.dependency });
    expect(await t.ledger.store.contractHead("no.such.tool")).toBeNull();
  });

  it("commits each of many concurrent transactions or none of one that throws, and keeps the audit chain whole", async () => {
    const store = t.ledger.store;
    const results = await Promise.allSettled(
      Array.from({ length: 24 }, (_, n) =>
        store.transaction(async (tx) => {
          const op = draft(`01STORE00000000000000000${String(n).padStart(2, "0")}`, `k${n}`);
          await tx.insertOperation(op);
          await tx.appendAudit([plannedEvent(op.id)]);
          if (n % 5 === 0) throw new Error(`command ${n} failed after writing`);
          return n;
        }),
      ),
    );
    const failed = results.flatMap((r, n) => (r.status === "rejected" ? [n] : []));
    expect(failed).toEqual([0, 5, 10, 15, 20]);
    const stored = await t.db.operation.findMany({ select: { idempotencyKey: true } });
    expect(stored.map((r) => r.idempotencyKey).sort()).toEqual(
      Array.from({ length: 24 }, (_, n) => n)
        .filter((n) => n % 5 !== 0)
        .map((n) => `k${n}`)
        .sort(),
    );
    const report = await verifyAuditChain(t.ledger);
    expect(report.problems).toEqual([]);
    expect(await t.db.auditEvent.count({ where: { action: "operation.planned" } })).toBe(19);
  });

  it("chains a batch's audit events in order however many there are, past the rows one INSERT carries", async () => {
    const store = t.ledger.store;
    const many = Array.from({ length: 1_200 }, (_, n) =>
      plannedEvent(`01STORE0000000000000${String(n).padStart(6, "0")}`),
    );
    await Promise.all([
      store.transaction((tx) => tx.appendAudit(many.slice(0, 700))),
      store.transaction((tx) => tx.appendAudit(many.slice(700))),
    ]);
    const report = await verifyAuditChain(t.ledger);
    expect(report.problems).toEqual([]);
    const events = await t.db.auditEvent.findMany({
      where: { action: "operation.planned" },
      orderBy: { seq: "asc" },
      select: { subjectId: true },
    });
    expect(events.map((e) => e.subjectId)).toEqual(many.map((e) => e.subjectId));
  });

  it("answers a duplicate key with UniqueViolation and writes nothing of that transaction", async () => {
    const store = t.ledger.store;
    await store.transaction((tx) => tx.insertOperation(draft("01STORE0000000000000000001", "k1")));
    await expect(
      store.transaction(async (tx) => {
        await tx.appendAudit([plannedEvent("01STORE0000000000000000002")]);
        await tx.insertOperation(draft("01STORE0000000000000000002", "k1"));
      }),
    ).rejects.toBeInstanceOf(UniqueViolation);
    expect(await t.db.operation.count()).toBe(1);
    expect(await t.db.auditEvent.count({ where: { subjectId: "01STORE0000000000000000002" } })).toBe(0);
  });

  it("writes a conditional update only at the version it names", async () => {
    const store = t.ledger.store;
    const op = draft("01STORE0000000000000000001", "k1");
    await store.transaction((tx) => tx.insertOperation(op));
    // As writeOperation uses it: SQLite answers false at once, PostgreSQL refuses the whole command when it is sent.
    const stale = store.transaction(async (tx) => {
      await tx.appendAudit([plannedEvent(op.id)]);
      if (!(await tx.updateOperation(op.id, 1, { leaseOwner: "w2" }))) throw new WriteConflict("moved");
    });
    await expect(stale).rejects.toBeInstanceOf(WriteConflict);
    expect(await t.db.auditEvent.count({ where: { subjectId: op.id } })).toBe(0);
    expect(
      await store.transaction((tx) =>
        tx.updateOperation(op.id, 0, { leaseOwner: "w2", version: 1, leaseExpiresAt: null }),
      ),
    ).toBe(true);
    expect(await t.db.operation.findUniqueOrThrow({ where: { id: op.id } })).toMatchObject({
      leaseOwner: "w2",
      version: 1,
      leaseExpiresAt: null,
    });
  });
});
