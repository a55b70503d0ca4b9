// Claim on plan (docs/api-extensions.md): the lease taken in the plan's transaction is the lease a separate claim would
// take.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf as code, dispatch, outcome } from "@/tests/helpers/lifecycle";
import { claimLease } from "./lease";
import { planOperation } from "./plan";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "payments-api" });
});
afterEach(async () => t.close());

const plan = (key: string, workerId: string, now = T0) =>
  planOperation(
    t.ledger,
    { tool: "payments.charge", args: { amount: 5 }, idempotencyKey: key, claim: { workerId, leaseMs: 30_000 } },
    agent,
    now,
  );

describe("planOperation with claim", () => {
  it("creates the operation holding the lease with fence 1, audited as a claim after the plan", async () => {
    const { operation, created } = await plan("k1", "w1");
    expect(created).toBe(true);
    expect(operation).toMatchObject({
      phase: "PLANNED",
      fence: 1,
      leaseOwner: "w1",
      leaseExpiresAt: at(30_000).toISOString(),
    });
    const stored = await t.db.operation.findUniqueOrThrow({ where: { id: operation.id } });
    expect(stored).toMatchObject({ fence: 1, leaseOwner: "w1", leaseExpiresAt: at(30_000), version: 0 });
    const audit = await t.db.auditEvent.findMany({ where: { subjectId: operation.id }, orderBy: { seq: "asc" } });
    expect(audit.map((e) => e.action)).toEqual(["operation.planned", "operation.lease_claimed"]);
    expect(JSON.parse(audit[1]?.data ?? "null")).toEqual({
      workerId: "w1",
      fence: 1,
      previousOwner: null,
      leaseMs: 30_000,
    });
  });

  it("lets the holder dispatch and report with that fence, and refuses another worker's claim", async () => {
    const { operation } = await plan("k1", "w1");
    expect(await code(claimLease(t.ledger, operation.id, { workerId: "w2", leaseMs: 30_000 }, agent, at(1)))).toBe(
      "lease_held",
    );
    await dispatch(t.ledger, operation.id, 1, at(2));
    const done = await outcome(t.ledger, operation.id, { fence: 1, result: "confirmed" }, at(3));
    expect(done.phase).toBe("CONFIRMED");
  });

  it("answers a replay with the same operation, claimed again as a separate claim would be", async () => {
    const first = await plan("k1", "w1");
    const again = await plan("k1", "w1", at(10));
    expect(again.created).toBe(false);
    expect(again.operation).toMatchObject({ id: first.operation.id, fence: 2, leaseOwner: "w1" });
    expect(await code(plan("k1", "w2", at(20)))).toBe("lease_held");
    expect(await t.db.operation.count()).toBe(1);
  });
});
