// Two instances on one database: what one instance remembers of an operation (PostgreSQL's store remembers the rows
// its last command saw) never decides a command after the other instance moved the operation, its breaker or its
// contract. On SQLite the store remembers nothing; the same answers are expected.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, contractFor, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf, dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { rejectOperation } from "@/lib/ledger/commands/approval";
import { verifyAuditChain } from "@/lib/ledger/audit/verify-chain";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { forceBreaker } from "@/lib/ledger/dependencies/dependencies";
import { claimLease } from "@/lib/ledger/commands/lease";
import { planOperation } from "@/lib/ledger/commands/plan";

let t: TestDb;
/** The second instance: its own ledger, store and memory, on the same database. */
let other: Ledger;
beforeEach(async () => {
  t = await createTestDb();
  other = openLedger(t.url, { poolSize: 2 });
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "payments-api" });
});
afterEach(async () => {
  await other.close();
  await t.close();
});

describe("an instance's memory of the rows it last saw", () => {
  it("does not dispatch an operation the other instance rejected meanwhile", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k1" }, T0);
    await rejectOperation(other, id, { reason: "wrong customer" }, alice, at(1));
    expect(await codeOf(dispatch(t.ledger, id, fence, at(2)))).toBe("already_finished");
    const stored = await t.db.operation.findUniqueOrThrow({ where: { id }, include: { attempts: true } });
    expect([stored.phase, stored.attempts.length]).toEqual(["REJECTED", 0]);
  });

  it("sees a lease the other instance took over, and a breaker it opened", async () => {
    const { id, fence } = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: {}, idempotencyKey: "k1" },
      T0,
      "w1",
      1_000,
    );
    const takeover = await claimLease(other, id, { workerId: "w2", leaseMs: 60_000 }, agent, at(2_000));
    expect(await codeOf(dispatch(t.ledger, id, fence, at(2_001)))).toBe("stale_fence");
    await forceBreaker(other, "payments-api", { state: "open", reason: "provider incident" }, alice, at(2_002));
    expect(await codeOf(dispatch(t.ledger, id, takeover.fence, at(2_003)))).toBe("breaker_open");
    expect(await t.db.attempt.count({ where: { operationId: id } })).toBe(0);
  });

  it("plans under a contract the other instance changed, at once", async () => {
    await planOperation(t.ledger, { tool: "payments.charge", args: { n: 1 }, idempotencyKey: "k1" }, agent, T0);
    await putContract(
      other,
      "payments.charge",
      contractFor("IDEMPOTENT", { dependency: "payments-api", approval: "required" }),
      alice,
      at(1),
    );
    const { operation } = await planOperation(
      t.ledger,
      { tool: "payments.charge", args: { n: 2 }, idempotencyKey: "k2" },
      agent,
      at(2),
    );
    expect([operation.contractVersion, operation.phase]).toEqual([2, "AWAITING_APPROVAL"]);
  });

  it("dispatches an operation sent to both instances at once exactly once, and refuses the other as the API says", async () => {
    for (let n = 0; n < 6; n++) {
      const { id, fence } = await planAndClaim(
        t.ledger,
        { tool: "payments.charge", args: { n }, idempotencyKey: `k${n}` },
        T0,
      );
      const codes = await Promise.all([
        codeOf(dispatch(t.ledger, id, fence, at(1))),
        codeOf(dispatch(other, id, fence, at(1))),
      ]);
      expect(codes.sort()).toEqual(["in_flight", "resolved"]);
      expect(await t.db.attempt.count({ where: { operationId: id } })).toBe(1);
    }
  });

  it("refuses a resent outcome the other instance's report overtook, and records each attempt once", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k1" }, T0);
    await dispatch(t.ledger, id, fence, at(1));
    await outcome(other, id, { fence, result: "confirmed", providerId: "ch_1" }, at(2));
    expect(await codeOf(outcome(t.ledger, id, { fence, result: "confirmed", providerId: "ch_2" }, at(3)))).toBe(
      "not_dispatched",
    );
    const stored = await t.db.operation.findUniqueOrThrow({ where: { id }, include: { attempts: true } });
    expect([stored.phase, stored.providerId, stored.attempts.map((a) => a.providerId)]).toEqual([
      "CONFIRMED",
      "ch_1",
      ["ch_1"],
    ]);
  });

  it("answers each of a turn's commands on its own when one of them is refused, and keeps the audit chain whole", async () => {
    const claimed = [];
    for (let n = 0; n < 8; n++) {
      claimed.push(await planAndClaim(t.ledger, { tool: "payments.charge", args: { n }, idempotencyKey: `k${n}` }, T0));
    }
    await rejectOperation(other, claimed[3]!.id, { reason: "wrong customer" }, alice, at(1));
    // Dispatched in one turn: on PostgreSQL their writes go out together (command-batch.ts), and the rejected one fails
    // them.
    const codes = await Promise.all(claimed.map(({ id, fence }) => codeOf(dispatch(t.ledger, id, fence, at(2)))));
    expect(codes).toEqual([
      "resolved",
      "resolved",
      "resolved",
      "already_finished",
      "resolved",
      "resolved",
      "resolved",
      "resolved",
    ]);
    expect(await t.db.attempt.count()).toBe(7);
    expect(await verifyAuditChain(t.ledger)).toMatchObject({ ok: true, problems: [] });
  });
});
