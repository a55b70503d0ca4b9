// Races between server processes on one database (SQLite file or PostgreSQL): two operators approving at once, two
// workers claiming, a worker and the recovery sweep on the same operations, two sweeps together, the same plan twice.
// Each test proves its race happened: the processes' contested statements wait at a race barrier until both reached it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { planOperation } from "@/lib/ledger/commands/plan";
import { RaceBarrier } from "@/lib/testing/race-barrier";
import { agent, at, T0, withContract } from "./helpers/ledger-fixtures";
import { dispatch, planAndClaim } from "./helpers/lifecycle";
import { contestedStatement, expectRaced, ServerProcesses } from "./helpers/ledger-processes";
import type { ServerResult } from "./helpers/ledger-server-process";
import { createTestDb, type TestDb } from "./helpers/test-db";

let t: TestDb;
/** Two server processes for the whole file: starting one costs more than a test. */
let servers: ServerProcesses;
let barrier: RaceBarrier;

beforeAll(() => {
  servers = new ServerProcesses(2);
});
afterAll(async () => {
  await servers.stop();
});
beforeEach(async () => {
  t = await createTestDb();
  barrier = await RaceBarrier.open(contestedStatement(t.engine), 2);
});
afterEach(async () => {
  await barrier.close();
  await t.close();
});

function recovered(result: ServerResult | undefined): number {
  if (!result || !("recovered" in result)) throw new Error(`not a sweep result: ${JSON.stringify(result)}`);
  return result.recovered;
}

function results(result: ServerResult | undefined): string[] {
  if (!result || !("results" in result)) throw new Error(`not a command result: ${JSON.stringify(result)}`);
  return result.results;
}

/** `count` operations DISPATCHED with a 1 s lease at T0, so a sweep at T0 + 5 s finds them all expired. */
async function expiredDispatches(count: number): Promise<{ id: string; fence: number }[]> {
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
  const ops = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      // Lease ends i ms apart, so the sweep's oldest-first order is the order of `ops`.
      const { id, fence } = await planAndClaim(
        t.ledger,
        { tool: "payments.charge", args: { i }, idempotencyKey: `k${i}` },
        T0,
        `w${i}`,
        1000 + i,
      );
      await dispatch(t.ledger, id, fence, at(1));
      return { id, fence };
    }),
  );
  return ops;
}

async function auditCount(id: string, action: string): Promise<number> {
  return t.db.auditEvent.count({ where: { subjectType: "operation", subjectId: id, action } });
}

describe(`races between server processes (${process.env.OPLEDGER_TEST_PG_URL ? "PostgreSQL" : "SQLite"})`, () => {
  it("two server processes sweeping together recover each expired lease exactly once", async () => {
    const ops = await expiredDispatches(12);
    const [a, b] = await servers.runTogether(
      t.url,
      [
        { kind: "sweep", now: at(5000).toISOString() },
        { kind: "sweep", now: at(5000).toISOString() },
      ],
      barrier,
    );
    // On PostgreSQL both sweeps read every row before either wrote it: each row is one contest.
    expectRaced(
      barrier,
      ops.map((op) => op.id),
    );
    expect(recovered(a) + recovered(b)).toBe(12);
    for (const { id, fence } of ops) {
      expect(await auditCount(id, "operation.outcome_unknown"), id).toBe(1);
      const row = await t.db.operation.findUniqueOrThrow({ where: { id } });
      // One move each: the fence once past the worker's, the row version once past dispatch.
      expect([row.phase, row.fence, row.version]).toEqual(["UNKNOWN", fence + 1, 3]);
    }
  }, 30_000);

  it("two operators approving the same operations at once grant each exactly one attempt", async () => {
    await withContract(t.ledger, "payments.refund", "IDEMPOTENT", { approval: "required" });
    const planned = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        planOperation(t.ledger, { tool: "payments.refund", args: { i }, idempotencyKey: `r${i}` }, agent, T0),
      ),
    );
    expect(planned.map((p) => p.operation.phase)).toEqual(planned.map(() => "AWAITING_APPROVAL"));
    const ids = planned.map((p) => p.operation.id);
    const [alice, bob] = await servers.runTogether(
      t.url,
      [
        { kind: "approve", ids, person: "alice", now: at(1).toISOString() },
        { kind: "approve", ids, person: "bob", now: at(1).toISOString() },
      ],
      barrier,
    );
    expectRaced(barrier, ids);
    for (const [i, id] of ids.entries()) {
      expect([results(alice)[i], results(bob)[i]].sort(), id).toEqual(["not_awaiting_approval", "resolved"]);
      expect(await auditCount(id, "operation.approved"), id).toBe(1);
      const row = await t.db.operation.findUniqueOrThrow({ where: { id } });
      expect([row.phase, row.approvedAttempt, row.version]).toEqual(["PLANNED", 1, 1]);
    }
  }, 30_000);

  it("a late worker report racing the recovery sweep: each operation is confirmed or recovered, never both", async () => {
    const ops = await expiredDispatches(12);
    // The worker confirms in the order the sweep recovers (oldest lease first), so the two meet in the middle.
    const [worker, sweep] = await servers.runTogether(
      t.url,
      [
        { kind: "confirm", items: ops, now: at(5000).toISOString() },
        { kind: "sweep", now: at(5000).toISOString() },
      ],
      barrier,
    );
    expectRaced(
      barrier,
      ops.map((op) => op.id),
    );
    const reports = results(worker);
    let unknown = 0;
    for (const [i, { id, fence }] of ops.entries()) {
      const row = await t.db.operation.findUniqueOrThrow({ where: { id } });
      const attempt = await t.db.attempt.findFirstOrThrow({ where: { operationId: id } });
      const confirmed = await auditCount(id, "operation.confirmed");
      const recoveredHere = await auditCount(id, "operation.outcome_unknown");
      if (reports[i] === "resolved") {
        // The worker's acknowledged report stands: the sweep skipped the row.
        expect([row.phase, row.fence, attempt.result, confirmed, recoveredHere], id).toEqual([
          "CONFIRMED",
          fence,
          "confirmed",
          1,
          0,
        ]);
      } else {
        // The sweep took it first; the worker's fence was stale and it wrote nothing but the audit of its refusal.
        expect(reports[i], id).toBe("stale_fence");
        expect([row.phase, row.fence, attempt.result, confirmed, recoveredHere], id).toEqual([
          "UNKNOWN",
          fence + 1,
          "unknown",
          0,
          1,
        ]);
        expect(await auditCount(id, "operation.stale_fence_rejected"), id).toBe(1);
        unknown++;
      }
    }
    expect(unknown).toBe(recovered(sweep));
  }, 30_000);

  it("two workers claiming the same operations at once: each lease goes to exactly one of them", async () => {
    await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
    const planned = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        planOperation(t.ledger, { tool: "payments.charge", args: { i }, idempotencyKey: `c${i}` }, agent, T0),
      ),
    );
    const ids = planned.map((p) => p.operation.id);
    const [first, second] = await servers.runTogether(
      t.url,
      [
        { kind: "claim", ids, workerId: "worker-1", now: at(1).toISOString() },
        { kind: "claim", ids, workerId: "worker-2", now: at(1).toISOString() },
      ],
      barrier,
    );
    expectRaced(barrier, ids);
    for (const [i, id] of ids.entries()) {
      const answers = [results(first)[i], results(second)[i]];
      expect([...answers].sort(), id).toEqual(["lease_held", "resolved"]);
      const row = await t.db.operation.findUniqueOrThrow({ where: { id } });
      expect([row.leaseOwner, row.fence], id).toEqual([answers[0] === "resolved" ? "worker-1" : "worker-2", 1]);
      expect(await auditCount(id, "operation.lease_claimed"), id).toBe(1);
    }
  }, 30_000);

  it("the same plan through two server processes at once makes one operation", async () => {
    await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
    // On PostgreSQL all 50 plans read "no such key" and reach the INSERT together; on SQLite each process's first
    // group commit (its 25 plans) meets the other's at the write lock.
    const point = contestedStatement(t.engine, "insert");
    const plans = await RaceBarrier.open(point, point === "operation.insert" ? 50 : 2);
    try {
      const job = { kind: "plan", count: 25, tool: "payments.charge", idempotencyKey: "order-1" } as const;
      const [a, b] = await servers.runTogether(
        t.url,
        [
          { ...job, now: T0.toISOString() },
          { ...job, now: T0.toISOString() },
        ],
        plans,
      );
      expectRaced(plans, ["payments.charge order-1"]);
      expect([...results(a), ...results(b)].filter((r) => r === "created")).toHaveLength(1);
      expect(await t.db.operation.count()).toBe(1);
      expect(await t.db.auditEvent.count({ where: { action: "operation.planned" } })).toBe(1);
    } finally {
      await plans.close();
    }
  }, 30_000);
});
