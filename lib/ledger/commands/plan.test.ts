// Planning: idempotent on (tool, key), canonical args, duplicate rejection, server-made keys, and no contract, no plan.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf as code } from "@/tests/helpers/lifecycle";
import { planOperation } from "./plan";
import { metricsSnapshot } from "@/lib/ledger/reads/metrics";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
  await withContract(t.ledger, "email.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
});
afterEach(async () => t.close());

describe("planOperation", () => {
  it("plans a new operation in PLANNED with attempt 0 and the contract's version", async () => {
    const { operation, created } = await planOperation(
      t.ledger,
      { tool: "payments.charge", args: { amount: 5 }, idempotencyKey: "k1" },
      agent,
      T0,
    );
    expect(created).toBe(true);
    expect(operation).toMatchObject({
      phase: "PLANNED",
      attempt: 0,
      contractVersion: 1,
      effect: "IDEMPOTENT",
      idempotencyKey: "k1",
    });
    expect(operation.decision.action).toBe("DISPATCH");
  });

  it("returns the same operation for the same key and args in any key order, writing nothing new", async () => {
    const first = await planOperation(
      t.ledger,
      { tool: "payments.charge", args: { a: 1, b: { c: 2, d: 3 } }, idempotencyKey: "k1" },
      agent,
      T0,
    );
    const audits = await t.db.auditEvent.count();
    const again = await planOperation(
      t.ledger,
      { tool: "payments.charge", args: { b: { d: 3, c: 2 }, a: 1 }, idempotencyKey: "k1" },
      agent,
      T0,
    );
    expect(again.created).toBe(false);
    expect(again.operation.id).toBe(first.operation.id);
    expect(await t.db.operation.count()).toBe(1);
    expect(await t.db.auditEvent.count()).toBe(audits);
  });

  it("rejects the same key with different args and counts a duplicate rejection", async () => {
    await planOperation(t.ledger, { tool: "payments.charge", args: { amount: 5 }, idempotencyKey: "k1" }, agent, T0);
    expect(
      await code(
        planOperation(t.ledger, { tool: "payments.charge", args: { amount: 6 }, idempotencyKey: "k1" }, agent, T0),
      ),
    ).toBe("idempotency_key_reused");
    expect(await t.db.operation.count()).toBe(1);
    expect((await metricsSnapshot(t.ledger)).duplicateRejectionsTotal).toBe(1);
  });

  it("refuses a tool without a contract and a missing required key", async () => {
    expect(await code(planOperation(t.ledger, { tool: "nope", args: {} }, agent, T0))).toBe("no_contract");
    expect(await code(planOperation(t.ledger, { tool: "payments.charge", args: {} }, agent, T0))).toBe(
      "idempotency_key_required",
    );
    expect(await t.db.operation.count()).toBe(0);
  });

  it("creates a key once when none is given and the contract allows it", async () => {
    const { operation } = await planOperation(t.ledger, { tool: "email.send", args: { to: "a@b.c" } }, agent, T0);
    expect(operation.idempotencyKey).toMatch(/^opk_/);
    const stored = await t.db.operation.findUniqueOrThrow({ where: { id: operation.id } });
    expect(stored.idempotencyKey).toBe(operation.idempotencyKey);
  });

  it("makes exactly one operation from 50 concurrent identical plans", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        planOperation(t.ledger, { tool: "payments.charge", args: { amount: 7 }, idempotencyKey: "same" }, agent, T0),
      ),
    );
    expect(new Set(results.map((r) => r.operation.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await t.db.operation.count()).toBe(1);
  });

  it("puts an operation whose contract requires approval straight into the approvals queue", async () => {
    await withContract(t.ledger, "deploy.prod", "REPLAYABLE", { approval: "required" });
    const { operation } = await planOperation(t.ledger, { tool: "deploy.prod", args: { v: 1 } }, agent, T0);
    expect(operation.phase).toBe("AWAITING_APPROVAL");
    expect(operation.decision.action).toBe("APPROVAL");
  });
});
