// Several app instances on one PostgreSQL: separate Prisma clients (separate pools) racing on the same rows never
// double a write. Each race is proven: the contenders' conditional writes wait at a race barrier until all reached it.
// (Their SQLite counterparts race server processes: tests/concurrency-races.test.ts.)
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RaceBarrier, type RacePoint } from "@/lib/testing/race-barrier";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { approveOperation } from "@/lib/ledger/commands/approval";
import { LedgerError } from "@/lib/ledger/errors";
import { planOperation } from "@/lib/ledger/commands/plan";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import { agent, alice, at, bob, T0, withContract } from "./helpers/ledger-fixtures";
import { dispatch, planAndClaim } from "./helpers/lifecycle";
import { testPostgresUrl } from "./helpers/pg-databases";
import { createTestDb, type TestDb } from "./helpers/test-db";

let t: TestDb;
/** The second instance: its own ledger and connection pool on the same database. */
let other: Ledger;

beforeEach(async () => {
  t = await createTestDb();
  other = openLedger(t.url, { poolSize: 5 });
});
afterEach(async () => {
  await other.close();
  await t.close();
});

/**
 * Runs `race` with this process's contested statements at `point` waiting at a barrier for `contenders` arrivals per
 * key; returns, per key, how many arrived before it was released.
 */
async function raced(point: RacePoint, contenders: number, race: () => Promise<void>): Promise<Map<string, number>> {
  const barrier = await RaceBarrier.open(point, contenders);
  process.env.OPLEDGER_TEST_HOOKS = "1";
  process.env.OPLEDGER_RACE_BARRIER = barrier.setting;
  try {
    await race();
  } finally {
    delete process.env.OPLEDGER_TEST_HOOKS;
    delete process.env.OPLEDGER_RACE_BARRIER;
    await barrier.close();
  }
  expect(barrier.timeouts).toEqual([]);
  return new Map([...barrier.met()].map(([key, pids]) => [key, pids.length]));
}

function codes(results: PromiseSettledResult<unknown>[]): string[] {
  return results
    .filter((r): r is PromiseRejectedResult => r.status === "rejected")
    .map((r) => (r.reason instanceof LedgerError ? r.reason.code : `unexpected: ${String(r.reason)}`));
}

describe.skipIf(!testPostgresUrl())("two instances on one PostgreSQL", () => {
  it("grants exactly one approval when two operators approve the same operation at once", async () => {
    await withContract(t.ledger, "payments.refund", "IDEMPOTENT", { approval: "required" });
    for (let round = 0; round < 10; round++) {
      const { operation } = await planOperation(
        t.ledger,
        { tool: "payments.refund", args: { round }, idempotencyKey: `r${round}` },
        agent,
        T0,
      );
      expect(operation.phase).toBe("AWAITING_APPROVAL");
      let results: PromiseSettledResult<unknown>[] = [];
      const met = await raced("operation.update", 2, async () => {
        results = await Promise.allSettled([
          approveOperation(t.ledger, operation.id, { reason: "checked by alice" }, alice, at(1)),
          approveOperation(other, operation.id, { reason: "checked by bob" }, bob, at(1)),
        ]);
      });
      expect(met.get(operation.id)).toBe(2);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(codes(results)).toEqual(["not_awaiting_approval"]);
      const row = await t.db.operation.findUniqueOrThrow({ where: { id: operation.id } });
      expect(row).toMatchObject({ phase: "PLANNED", approvedAttempt: 1, version: 1 });
      expect(await t.db.auditEvent.count({ where: { subjectId: operation.id, action: "operation.approved" } })).toBe(1);
    }
  });

  it("shares the recovery sweep: 20 expired leases are recovered once each across two instances", async () => {
    await withContract(t.ledger, "search.web", "PURE");
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { id, fence } = await planAndClaim(t.ledger, { tool: "search.web", args: { i } }, T0, `w${i}`, 1000);
      await dispatch(t.ledger, id, fence, at(1));
      ids.push(id);
    }
    let recovered: number[] = [];
    // Both instances read every row before either wrote it: one contest per row.
    const met = await raced("operation.update", 2, async () => {
      recovered = await Promise.all([recoverExpiredLeases(t.ledger, at(5000)), recoverExpiredLeases(other, at(5000))]);
    });
    expect(ids.map((id) => met.get(id))).toEqual(ids.map(() => 2));
    expect(recovered[0]! + recovered[1]!).toBe(20);
    // Each fence moved once past the worker's (1 -> 2), each row version once past dispatch (2 -> 3).
    const rows = await t.db.operation.findMany({ where: { id: { in: ids } } });
    expect(rows.map((r) => [r.phase, r.fence, r.version])).toEqual(ids.map(() => ["UNKNOWN", 2, 3]));
    const unknowns = await t.db.auditEvent.groupBy({
      by: ["subjectId"],
      where: { action: "operation.outcome_unknown" },
      _count: { _all: true },
    });
    expect(unknowns).toHaveLength(20);
    expect(unknowns.every((u) => u._count._all === 1)).toBe(true);
    // A second pass on either instance finds nothing left.
    expect(await recoverExpiredLeases(other, at(6000))).toBe(0);
  });

  it("turns 50 concurrent identical plans through two instances into one operation", async () => {
    await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
    const input = { tool: "payments.charge", args: { amount: 5, currency: "EUR" }, idempotencyKey: "order-1" };
    let results: Awaited<ReturnType<typeof planOperation>>[] = [];
    // All 50 read "no such key" and reach the INSERT before any of them writes.
    const met = await raced("operation.insert", 50, async () => {
      results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => planOperation(i % 2 === 0 ? t.ledger : other, input, agent, T0)),
      );
    });
    expect(met.get("payments.charge order-1")).toBe(50);
    expect(new Set(results.map((r) => r.operation.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await t.db.operation.count()).toBe(1);
    expect(await t.db.auditEvent.count({ where: { action: "operation.planned" } })).toBe(1);
  });
});
