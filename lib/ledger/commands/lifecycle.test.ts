// The run lifecycle on a real database: lease and fencing, dispatch, outcomes, retries, approvals, reconciliation,
// recovery.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, bob, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf, dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { approveOperation, rejectOperation } from "./approval";
import { claimLease, heartbeatLease } from "./lease";
import { metricsSnapshot } from "@/lib/ledger/reads/metrics";
import { getOperation } from "@/lib/ledger/reads/operations";
import { reconcileOperation } from "./reconcile";
import { recoverExpiredLeases } from "./sweep";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
  await withContract(t.ledger, "email.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
  await withContract(t.ledger, "search.web", "PURE");
});
afterEach(async () => t.close());

describe("lease and fencing", () => {
  it("refuses a second worker while the lease is live, and takes over an expired one with a higher fence", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "search.web", args: { q: "x" } }, T0, "w1", 1000);
    expect(fence).toBe(1);
    expect(await codeOf(claimLease(t.ledger, id, { workerId: "w2", leaseMs: 1000 }, agent, at(500)))).toBe(
      "lease_held",
    );
    const takeover = await claimLease(t.ledger, id, { workerId: "w2", leaseMs: 1000 }, agent, at(1001));
    expect(takeover.fence).toBe(2);
    expect(await codeOf(dispatch(t.ledger, id, fence, at(1002)))).toBe("stale_fence");
    expect(await codeOf(heartbeatLease(t.ledger, id, { fence, leaseMs: 1000 }, agent, at(1002)))).toBe("stale_fence");
    const detail = await getOperation(t.ledger, id, at(1003));
    expect(detail.phase).toBe("PLANNED");
    expect(detail.attempt).toBe(0);
    expect(detail.audit.filter((a) => a.action === "operation.stale_fence_rejected")).toHaveLength(2);
    expect((await metricsSnapshot(t.ledger)).staleFenceRejectionsTotal).toBe(2);
    expect((await dispatch(t.ledger, id, takeover.fence, at(1003))).phase).toBe("DISPATCHED");
  });

  it("refuses to dispatch on an expired lease", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "search.web", args: {} }, T0, "w1", 1000);
    expect(await codeOf(dispatch(t.ledger, id, fence, at(1000)))).toBe("lease_expired");
  });
});

describe("dispatch and outcome", () => {
  it("confirms on the first attempt with an attempt row and audit records through AUTHORIZED", async () => {
    const { id, fence } = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: { amount: 5 }, idempotencyKey: "k" },
      T0,
    );
    const dispatched = await dispatch(t.ledger, id, fence, at(1));
    expect(dispatched).toMatchObject({ phase: "DISPATCHED", attempt: 1, idempotencyKey: "k" });
    const confirmed = await outcome(t.ledger, id, { fence, result: "confirmed", providerId: "ch_1" }, at(2));
    expect(confirmed).toMatchObject({ phase: "CONFIRMED", providerId: "ch_1" });
    expect(confirmed.decision.action).toBe("STOP");
    const detail = await getOperation(t.ledger, id, at(3));
    expect(detail.attempts).toEqual([
      expect.objectContaining({ number: 1, workerId: "w1", fence, result: "confirmed", providerId: "ch_1" }),
    ]);
    expect(detail.audit.map((a) => `${a.fromPhase ?? ""}>${a.toPhase ?? ""}`)).toEqual([
      ">PLANNED",
      ">",
      "PLANNED>AUTHORIZED",
      "AUTHORIZED>DISPATCHED",
      "DISPATCHED>CONFIRMED",
    ]);
    expect(await codeOf(dispatch(t.ledger, id, fence, at(4)))).toBe("already_finished");
  });

  it("accepts the same outcome report twice without a second change, and refuses an outcome with nothing in flight", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "search.web", args: {} }, T0);
    expect(await codeOf(outcome(t.ledger, id, { fence, result: "confirmed" }, at(1)))).toBe("not_dispatched");
    await dispatch(t.ledger, id, fence, at(1));
    await outcome(t.ledger, id, { fence, result: "confirmed" }, at(2));
    const audits = await t.db.auditEvent.count();
    expect((await outcome(t.ledger, id, { fence, result: "confirmed" }, at(3))).phase).toBe("CONFIRMED");
    expect(await t.db.auditEvent.count()).toBe(audits);
  });

  it("refuses a resent confirmation that names another provider id, and a heartbeat on a finished operation", async () => {
    const { id, fence } = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: {}, idempotencyKey: "k" },
      T0,
      "w1",
      1000,
    );
    await dispatch(t.ledger, id, fence, at(1));
    await outcome(t.ledger, id, { fence, result: "confirmed", providerId: "ch_1" }, at(2));
    expect(await codeOf(outcome(t.ledger, id, { fence, result: "confirmed", providerId: "ch_2" }, at(3)))).toBe(
      "not_dispatched",
    );
    expect(await codeOf(heartbeatLease(t.ledger, id, { fence, leaseMs: 60_000 }, agent, at(5_000)))).toBe(
      "already_finished",
    );
    expect(await getOperation(t.ledger, id, at(5_001))).toMatchObject({ phase: "CONFIRMED", providerId: "ch_1" });
  });

  it("schedules an IDEMPOTENT retry with the same key after a 503, refuses it before it is due, then allows it", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k" }, T0);
    await dispatch(t.ledger, id, fence, at(1));
    const failed = await outcome(
      t.ledger,
      id,
      { fence, result: "failed", error: { httpStatus: 503, retryAfterMs: 500 } },
      at(2),
    );
    expect(failed.phase).toBe("RETRY_SCHEDULED");
    expect(failed.decision.action).toBe("RETRY_SAME_KEY");
    expect(failed.decision.retryAfterMs).toBeGreaterThanOrEqual(500);
    expect(await codeOf(dispatch(t.ledger, id, fence, at(3)))).toBe("retry_not_due");
    const second = await dispatch(t.ledger, id, fence, at(2 + failed.decision.retryAfterMs!));
    expect(second).toMatchObject({ phase: "DISPATCHED", attempt: 2, idempotencyKey: "k" });
    const detail = await getOperation(t.ledger, id, at(5000));
    expect(detail.attempts[1]?.backoffMs).toBe(failed.decision.retryAfterMs);
  });

  it("ends in FAILED on a fatal error and never retries", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k" }, T0);
    await dispatch(t.ledger, id, fence, at(1));
    const failed = await outcome(
      t.ledger,
      id,
      { fence, result: "failed", error: { httpStatus: 422, message: "card declined" } },
      at(2),
    );
    expect(failed.phase).toBe("FAILED");
    expect(failed.decision.action).toBe("STOP");
    expect(await codeOf(dispatch(t.ledger, id, fence, at(10_000)))).toBe("already_finished");
  });

  it("asks for approval once the retry budget is spent", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "search.web", args: {} }, T0);
    let now = 1;
    for (let i = 0; i < 3; i++) {
      await dispatch(t.ledger, id, fence, at(now));
      const r = await outcome(
        t.ledger,
        id,
        { fence, result: "failed", error: { kind: "connection_reset" } },
        at(now + 1),
      );
      now += 2 + (r.decision.retryAfterMs ?? 0);
    }
    const op = await getOperation(t.ledger, id, at(now));
    expect(op.attempt).toBe(3);
    expect(op.phase).toBe("AWAITING_APPROVAL");
    expect(await codeOf(dispatch(t.ledger, id, fence, at(now)))).toBe("approval_required");
  });
});

describe("approval", () => {
  async function failedEmail() {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "email.send", args: { to: "x@y.z" } }, T0);
    await dispatch(t.ledger, id, fence, at(1));
    const failed = await outcome(t.ledger, id, { fence, result: "failed", error: { httpStatus: 503 } }, at(2));
    return { id, fence, failed };
  }

  it("sends a NON_RETRYABLE retry to a person, and an approval grants exactly one attempt", async () => {
    const { id, fence, failed } = await failedEmail();
    expect(failed.phase).toBe("AWAITING_APPROVAL");
    expect(await codeOf(dispatch(t.ledger, id, fence, at(3)))).toBe("approval_required");
    const approved = await approveOperation(t.ledger, id, { reason: "customer asked again" }, alice, at(4));
    expect(approved).toMatchObject({ phase: "RETRY_SCHEDULED", approvedAttempt: 2 });
    expect((await dispatch(t.ledger, id, fence, at(5))).attempt).toBe(2);
    const again = await outcome(t.ledger, id, { fence, result: "failed", error: { httpStatus: 503 } }, at(6));
    expect(again.phase).toBe("AWAITING_APPROVAL");
    expect(await codeOf(dispatch(t.ledger, id, fence, at(7)))).toBe("approval_required");
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "x" }, alice, at(8)))).toBe("resolved");
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "x" }, alice, at(9)))).toBe("not_awaiting_approval");
  });

  it("refuses an approval from the agent key whose attempt failed, even with the four-eyes rule off", async () => {
    const { id } = await failedEmail();
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "me again" }, agent, at(3)))).toBe("person_required");
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "solo" }, agent, at(5), { fourEyes: false }))).toBe(
      "person_required",
    );
    expect((await getOperation(t.ledger, id, at(6))).phase).toBe("AWAITING_APPROVAL");
  });

  it("gives one grant when two people approve at once", async () => {
    const { id } = await failedEmail();
    const results = await Promise.all([
      codeOf(approveOperation(t.ledger, id, { reason: "a" }, alice, at(3))),
      codeOf(approveOperation(t.ledger, id, { reason: "b" }, bob, at(3))),
    ]);
    expect(results.sort()).toEqual(["not_awaiting_approval", "resolved"]);
    const detail = await getOperation(t.ledger, id, at(4));
    expect(detail.audit.filter((a) => a.action === "operation.approved")).toHaveLength(1);
  });

  it("refuses a reject decided on a state someone else already changed, inside the ledger's transaction", async () => {
    const { id } = await failedEmail();
    const seen = await getOperation(t.ledger, id, at(3));
    const shown = {
      phase: seen.phase,
      attempt: seen.attempt,
      approvedAttempt: seen.approvedAttempt,
      evidence: seen.evidence,
    };
    await approveOperation(t.ledger, id, { reason: "retry it", seen: shown }, bob, at(4));
    expect(await codeOf(rejectOperation(t.ledger, id, { reason: "stop it", seen: shown }, alice, at(5)))).toBe(
      "write_conflict",
    );
    expect((await getOperation(t.ledger, id, at(6))).phase).toBe("RETRY_SCHEDULED");
  });

  it("rejects with a reason the agent sees in the decision", async () => {
    const { id, fence } = await failedEmail();
    const rejected = await rejectOperation(t.ledger, id, { reason: "duplicate complaint" }, alice, at(3));
    expect(rejected.phase).toBe("REJECTED");
    expect(rejected.decision).toMatchObject({ action: "STOP" });
    expect(rejected.decision.reason).toContain("duplicate complaint");
    expect(await codeOf(dispatch(t.ledger, id, fence, at(4)))).toBe("already_finished");
    expect(await codeOf(rejectOperation(t.ledger, id, { reason: "again" }, alice, at(5)))).toBe("not_rejectable");
  });
});

describe("unknown outcomes, reconciliation and recovery", () => {
  it("holds an unknown outcome for reconciliation; 'applied' stops it for good", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k" }, T0);
    await dispatch(t.ledger, id, fence, at(1));
    const unknown = await outcome(t.ledger, id, { fence, result: "unknown", error: { kind: "timeout" } }, at(2));
    expect(unknown.phase).toBe("UNKNOWN");
    expect(unknown.decision.action).toBe("RECONCILE");
    expect(await codeOf(dispatch(t.ledger, id, fence, at(3)))).toBe("reconcile_required");
    const reconciled = await reconcileOperation(
      t.ledger,
      id,
      { outcome: "applied", providerId: "ch_9", evidence: { lookup: "found" } },
      alice,
      at(4),
    );
    expect(reconciled).toMatchObject({ phase: "RECONCILED", evidence: "applied", providerId: "ch_9" });
    expect(reconciled.decision.action).toBe("STOP");
    // Reconciling fenced the worker out; a new claim finds nothing left to send.
    expect(await codeOf(dispatch(t.ledger, id, fence, at(5)))).toBe("stale_fence");
    const again = await claimLease(t.ledger, id, { workerId: "w2", leaseMs: 1000 }, agent, at(5));
    expect(again.fence).toBe(fence + 2);
    expect(await codeOf(dispatch(t.ledger, id, again.fence, at(5)))).toBe("already_finished");
    expect(await codeOf(reconcileOperation(t.ledger, id, { outcome: "applied", evidence: null }, alice, at(6)))).toBe(
      "not_unknown",
    );
  });

  it("refuses a reconciliation that approves a retry of an effect that happened, or a person's 'applied' with no provider id", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k" }, T0);
    await dispatch(t.ledger, id, fence, at(1));
    await outcome(t.ledger, id, { fence, result: "unknown" }, at(2));
    const contradiction = reconcileOperation(
      t.ledger,
      id,
      { outcome: "applied", providerId: "ch_1", evidence: null, approveRetry: true },
      agent,
      at(3),
    );
    await expect(contradiction).rejects.toMatchObject({
      code: "invalid_body",
      extra: { errors: { approveRetry: [expect.any(String)] } },
    });
    const unnamed = reconcileOperation(t.ledger, id, { outcome: "applied", evidence: null }, alice, at(4));
    await expect(unnamed).rejects.toMatchObject({
      code: "invalid_body",
      extra: { errors: { providerId: [expect.any(String)] } },
    });
    expect((await t.db.operation.findUniqueOrThrow({ where: { id } })).phase).toBe("UNKNOWN");
    // An agent's lookup may prove the effect without knowing the provider's id.
    expect((await reconcileOperation(t.ledger, id, { outcome: "applied", evidence: null }, agent, at(5))).phase).toBe(
      "RECONCILED",
    );
  });

  it("lets an IDEMPOTENT operation reconciled as 'not applied' retry with the same key", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k" }, T0);
    await dispatch(t.ledger, id, fence, at(1));
    await outcome(t.ledger, id, { fence, result: "unknown" }, at(2));
    const reconciled = await reconcileOperation(
      t.ledger,
      id,
      { outcome: "not_applied", evidence: { lookup: "404" } },
      agent,
      at(3),
    );
    expect(reconciled.decision.action).toBe("RETRY_SAME_KEY");
    // The worker whose attempt was lost holds no lease any more: the retry starts with a claim.
    const lease = await claimLease(t.ledger, id, { workerId: "w2", leaseMs: 1000 }, agent, at(4));
    expect(await dispatch(t.ledger, id, lease.fence, at(4))).toMatchObject({ attempt: 2, idempotencyKey: "k" });
  });

  it("turns an abandoned DISPATCHED operation into UNKNOWN by the system, and fences out the old worker", async () => {
    const { id, fence } = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: {}, idempotencyKey: "k" },
      T0,
      "w1",
      1000,
    );
    await dispatch(t.ledger, id, fence, at(1));
    expect(await recoverExpiredLeases(t.ledger, at(999))).toBe(0);
    expect(await recoverExpiredLeases(t.ledger, at(1001))).toBe(1);
    expect(await recoverExpiredLeases(t.ledger, at(1002))).toBe(0);
    const detail = await getOperation(t.ledger, id, at(1003));
    expect(detail.phase).toBe("UNKNOWN");
    expect(detail.fence).toBe(fence + 1);
    expect(detail.attempts[0]?.result).toBe("unknown");
    expect(detail.audit.at(-1)).toMatchObject({ actorType: "system", fromPhase: "DISPATCHED", toPhase: "UNKNOWN" });
    expect(await codeOf(outcome(t.ledger, id, { fence, result: "confirmed" }, at(1004)))).toBe("stale_fence");
  });

  it("makes a DISPATCHED operation whose lease ran out UNKNOWN when it is claimed before the sweep, for any worker", async () => {
    // A restarted worker (or gateway) claiming again before the sweep ran: the claim must not hand the lost attempt a
    // fresh lease, or a caller that keeps claiming would keep it DISPATCHED and out of every person's queue.
    for (const [n, worker] of ["w2", "w1"].entries()) {
      const { id, fence } = await planAndClaim(
        t.ledger,
        { tool: "payments.charge", args: { n }, idempotencyKey: `lost-${n}` },
        T0,
        "w1",
        1000,
      );
      await dispatch(t.ledger, id, fence, at(1));
      const lease = await claimLease(t.ledger, id, { workerId: worker, leaseMs: 1000 }, agent, at(1001));
      expect(lease.operation.phase).toBe("UNKNOWN");
      expect(lease.operation.decision.action).toBe("RECONCILE");
      expect(lease.fence).toBe(fence + 1);
      expect(await codeOf(dispatch(t.ledger, id, lease.fence, at(1002)))).toBe("reconcile_required");
      const detail = await getOperation(t.ledger, id, at(1003));
      expect(detail.phase).toBe("UNKNOWN");
      expect(detail.attempts[0]?.result).toBe("unknown");
      expect(detail.audit.map((a) => [a.action, a.actorType]).slice(-2)).toEqual([
        ["operation.outcome_unknown", "system"],
        ["operation.lease_claimed", "api_key"],
      ]);
      expect(await recoverExpiredLeases(t.ledger, at(5000))).toBe(0);
    }
  });

  it("does not double-recover when two sweeps run at once", async () => {
    for (let i = 0; i < 5; i++) {
      const { id, fence } = await planAndClaim(t.ledger, { tool: "search.web", args: { i } }, T0, "w1", 10);
      await dispatch(t.ledger, id, fence, at(1));
    }
    const moved = await Promise.all([recoverExpiredLeases(t.ledger, at(100)), recoverExpiredLeases(t.ledger, at(100))]);
    expect(moved[0] + moved[1]).toBe(5);
    expect(await t.db.auditEvent.count({ where: { action: "operation.outcome_unknown" } })).toBe(5);
  });
});
