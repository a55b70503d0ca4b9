// The gateway's call in two commits: plan, claim and dispatch of a new operation in one transaction, leaving what the
// three commands would have left one after another.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { outcome } from "@/tests/helpers/lifecycle";
import { planAndDispatch } from "./gateway-call";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

const call = (tool: string, key: string, workerId = "w1", now = T0) =>
  planAndDispatch(
    t.ledger,
    { tool, args: { amount: 5 }, idempotencyKey: key, via: "mcp", claim: { workerId, leaseMs: 30_000 } },
    agent,
    now,
  );

const auditOf = async (id: string) =>
  (await t.db.auditEvent.findMany({ where: { subjectId: id }, orderBy: { seq: "asc" } })).map((e) => e.action);

describe("planAndDispatch", () => {
  it("plans, claims and dispatches a new operation in one transaction, each step audited as on its own", async () => {
    await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "payments-api" });
    const { operation, dispatched } = await call("payments.charge", "k1");
    expect(dispatched && "operation" in dispatched).toBe(true);
    expect(operation).toMatchObject({ phase: "DISPATCHED", attempt: 1, fence: 1, leaseOwner: "w1" });
    const stored = await t.db.operation.findUniqueOrThrow({ where: { id: operation.id }, include: { attempts: true } });
    expect(stored).toMatchObject({ phase: "DISPATCHED", attempt: 1, fence: 1, leaseOwner: "w1", via: "mcp" });
    expect(stored.attempts).toMatchObject([{ number: 1, fence: 1, workerId: "w1", result: "in_flight" }]);
    expect(await auditOf(operation.id)).toEqual([
      "operation.planned",
      "operation.lease_claimed",
      "operation.authorized",
      "operation.dispatched",
    ]);
    const done = await outcome(t.ledger, operation.id, { fence: 1, result: "confirmed" }, at(5));
    expect(done.phase).toBe("CONFIRMED");
  });

  it("commits a refused dispatch with its plan: a call that needs a person waits for one, nothing sent", async () => {
    await withContract(t.ledger, "payments.refund", "NON_RETRYABLE", { approval: "required" });
    const { operation, dispatched } = await call("payments.refund", "k2");
    expect(dispatched && "refused" in dispatched ? dispatched.refused.code : null).toBe("approval_required");
    expect(operation).toMatchObject({ phase: "AWAITING_APPROVAL", attempt: 0, fence: 1 });
    expect(await t.db.attempt.count()).toBe(0);
    expect(await auditOf(operation.id)).toEqual([
      "operation.planned",
      "operation.approval_requested",
      "operation.lease_claimed",
    ]);
  });

  it("answers an existing operation as a replayed plan, claimed and not dispatched", async () => {
    await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
    const first = await call("payments.charge", "k3");
    await outcome(t.ledger, first.operation.id, { fence: 1, result: "failed", error: { httpStatus: 503 } }, at(1));
    const again = await call("payments.charge", "k3", "w2", at(60_000));
    expect(again.dispatched).toBeUndefined();
    expect(again.operation).toMatchObject({ id: first.operation.id, fence: 2, leaseOwner: "w2", attempt: 1 });
    expect(await t.db.operation.count()).toBe(1);
  });
});
