// Dependencies on a real database: an operator's override goes through the pure breaker, is audited, and the gate obeys
// it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { alice, at, bob, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf, dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { forceBreaker, getDependency, listDependencies, RECENT_FAILURE_WINDOW_MS } from "./dependencies";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "stripe" });
  await withContract(t.ledger, "payments.refund", "NON_RETRYABLE", { dependency: "stripe" });
  await withContract(t.ledger, "email.send", "NON_RETRYABLE", { dependency: "mailer", idempotencyKey: "unsupported" });
});
afterEach(async () => t.close());

const auditOf = (name: string) =>
  t.db.auditEvent.findMany({ where: { subjectType: "dependency", subjectId: name }, orderBy: { id: "asc" } });

describe("forceBreaker", () => {
  it("forces a breaker open with the reason, writes one audit record naming the actor, and bumps the row version", async () => {
    const { dependency, changed } = await forceBreaker(
      t.ledger,
      "stripe",
      { state: "open", reason: "  Stripe incident INC-42  " },
      alice,
      at(1000),
    );
    expect(changed).toBe(true);
    expect(dependency).toMatchObject({
      name: "stripe",
      state: "open",
      storedState: "open",
      forced: "open",
      forcedReason: "Stripe incident INC-42",
      forcedBy: { actorType: "user", actorId: alice.id, onBehalfOf: null, at: at(1000).toISOString() },
    });
    expect((await t.db.dependency.findUniqueOrThrow({ where: { name: "stripe" } })).version).toBe(1);
    const audit = await auditOf("stripe");
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "dependency.forced_open",
      actorType: "user",
      actorId: alice.id,
      reason: "Stripe incident INC-42",
      createdAt: at(1000),
    });
    expect(JSON.parse(audit[0]?.data ?? "{}")).toEqual({
      from: "closed",
      to: "open",
      forcedBefore: null,
      forced: "open",
    });
  });

  it("keeps a forced-open breaker open past the cooldown, where an automatic one would turn half-open", async () => {
    await forceBreaker(t.ledger, "stripe", { state: "open", reason: "incident" }, alice, T0);
    expect((await getDependency(t.ledger, "stripe", at(10 * 60_000))).state).toBe("open");
  });

  it("makes the gate refuse a dispatch to a forced-open dependency without spending an attempt", async () => {
    await forceBreaker(t.ledger, "stripe", { state: "open", reason: "incident" }, alice, T0);
    const { id, fence } = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: {}, idempotencyKey: "k1" },
      at(1),
    );
    expect(await codeOf(dispatch(t.ledger, id, fence, at(2)))).toBe("breaker_open");
    expect((await t.db.operation.findUniqueOrThrow({ where: { id } })).attempt).toBe(0);
    // Another dependency is not affected.
    const other = await planAndClaim(t.ledger, { tool: "email.send", args: {} }, at(3));
    expect((await dispatch(t.ledger, other.id, other.fence, at(4))).phase).toBe("DISPATCHED");
  });

  it("forces closed, then returns to automatic with the failure count reset, auditing each step", async () => {
    await forceBreaker(t.ledger, "stripe", { state: "open", reason: "incident" }, alice, T0);
    const closed = await forceBreaker(
      t.ledger,
      "stripe",
      { state: "closed", reason: "provider says healthy" },
      bob,
      at(1),
    );
    expect(closed.dependency).toMatchObject({
      state: "closed",
      forced: "closed",
      forcedReason: "provider says healthy",
    });
    const released = await forceBreaker(t.ledger, "stripe", { state: "auto", reason: "incident over" }, alice, at(2));
    expect(closed.dependency.forcedBy).toMatchObject({ actorId: bob.id });
    expect(released.dependency).toMatchObject({
      state: "closed",
      forced: null,
      forcedReason: null,
      forcedBy: null,
      consecutiveFailures: 0,
    });
    const audit = await auditOf("stripe");
    expect(audit.map((a) => [a.action, a.actorId, a.reason])).toEqual([
      ["dependency.forced_open", alice.id, "incident"],
      ["dependency.forced_closed", bob.id, "provider says healthy"],
      ["dependency.released", alice.id, "incident over"],
    ]);
  });

  it("writes nothing when returning to automatic a breaker nobody pinned", async () => {
    const result = await forceBreaker(t.ledger, "stripe", { state: "auto", reason: "just in case" }, alice, T0);
    expect(result.changed).toBe(false);
    expect(await auditOf("stripe")).toHaveLength(0);
    expect((await t.db.dependency.findUniqueOrThrow({ where: { name: "stripe" } })).version).toBe(0);
  });

  it("writes nothing when the same override with the same reason is sent twice at the same instant", async () => {
    await forceBreaker(t.ledger, "stripe", { state: "open", reason: "incident" }, alice, T0);
    const again = await forceBreaker(t.ledger, "stripe", { state: "open", reason: "incident" }, alice, T0);
    expect(again.changed).toBe(false);
    expect(await auditOf("stripe")).toHaveLength(1);
  });

  it("refuses a blank reason and an unknown dependency, changing nothing", async () => {
    expect(await codeOf(forceBreaker(t.ledger, "stripe", { state: "open", reason: "   " }, alice, T0))).toBe(
      "invalid_body",
    );
    expect(await codeOf(forceBreaker(t.ledger, "nope", { state: "open", reason: "x" }, alice, T0))).toBe("not_found");
    expect(await t.db.auditEvent.count({ where: { subjectType: "dependency" } })).toBe(0);
  });

  it("serialises two concurrent overrides through the row version: both are applied and audited, one after the other", async () => {
    await Promise.all([
      forceBreaker(t.ledger, "stripe", { state: "open", reason: "first" }, alice, T0),
      forceBreaker(t.ledger, "stripe", { state: "closed", reason: "second" }, bob, T0),
    ]);
    const row = await t.db.dependency.findUniqueOrThrow({ where: { name: "stripe" } });
    expect(row.version).toBe(2);
    const audit = await auditOf("stripe");
    expect(audit).toHaveLength(2);
    // The row ends as the later audit record says.
    expect(row.forced).toBe(audit[1]?.action === "dependency.forced_open" ? "open" : "closed");
  });
});

describe("listDependencies", () => {
  it("lists every dependency with its tools, breaker and recent failed or unknown attempts", async () => {
    const first = await planAndClaim(t.ledger, { tool: "payments.charge", args: { n: 1 }, idempotencyKey: "k1" }, T0);
    await dispatch(t.ledger, first.id, first.fence, at(1));
    await outcome(t.ledger, first.id, { fence: first.fence, result: "failed", error: { httpStatus: 503 } }, at(2));
    const second = await planAndClaim(t.ledger, { tool: "payments.refund", args: { n: 2 } }, at(3));
    await dispatch(t.ledger, second.id, second.fence, at(4));
    await outcome(t.ledger, second.id, { fence: second.fence, result: "unknown", error: { kind: "timeout" } }, at(5));

    const list = await listDependencies(t.ledger, at(10));
    expect(list.map((d) => d.name)).toEqual(["mailer", "stripe"]);
    const stripe = list.find((d) => d.name === "stripe");
    expect(stripe).toMatchObject({
      tools: ["payments.charge", "payments.refund"],
      state: "closed",
      forced: null,
      consecutiveFailures: 2,
      failureThreshold: 5,
      recentFailures: 2,
      lastFailureAt: at(5).toISOString(),
    });
    expect(stripe?.lastFailures.map((f) => [f.tool, f.result, f.errorKind, f.httpStatus])).toEqual([
      ["payments.refund", "unknown", "timeout", null],
      ["payments.charge", "failed", "server_error", 503],
    ]);
    expect(list.find((d) => d.name === "mailer")).toMatchObject({
      tools: ["email.send"],
      recentFailures: 0,
      lastFailures: [],
    });

    const later = await getDependency(t.ledger, "stripe", at(5 + RECENT_FAILURE_WINDOW_MS + 1));
    expect(later.recentFailures).toBe(0);
  });

  it("keeps counting failures of operations planned under an older contract version after the dependency is removed", async () => {
    const op = await planAndClaim(t.ledger, { tool: "payments.refund", args: {} }, T0);
    await dispatch(t.ledger, op.id, op.fence, at(1));
    await outcome(t.ledger, op.id, { fence: op.fence, result: "unknown" }, at(2));
    await withContract(t.ledger, "payments.refund", "NON_RETRYABLE", { dependency: null });
    const stripe = await getDependency(t.ledger, "stripe", at(3));
    expect(stripe.tools).toEqual(["payments.charge"]);
    expect(stripe.recentFailures).toBe(1);
  });

  it("reads an automatically opened breaker as half-open once its cooldown is over", async () => {
    await t.db.dependency.update({
      where: { name: "mailer" },
      data: { state: "open", openedAt: T0, consecutiveFailures: 5 },
    });
    expect((await getDependency(t.ledger, "mailer", at(1000))).state).toBe("open");
    expect((await getDependency(t.ledger, "mailer", at(30_000))).state).toBe("half_open");
  });
});
