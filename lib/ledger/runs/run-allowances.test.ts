// A run's allowance on a real database: only the key that owns the run reads or declares it, and its retries, deadline
// and backoff are spent across the run's operations, in the transaction of the outcome or dispatch that spends them,
// the gate stopping them with the reason in words (also when a retry is about to leave, and when two failures race).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/ledger/actor";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, otherAgent, T0, viewer, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf } from "@/tests/helpers/lifecycle";
import { claimLease } from "@/lib/ledger/commands/lease";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { planOperation } from "@/lib/ledger/commands/plan";
import { metricsSnapshot } from "@/lib/ledger/reads/metrics";
import { readAudit } from "@/lib/services/notify/audit-reader";
import { putWebhook } from "@/lib/services/notify/webhooks";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { getOperation } from "@/lib/ledger/reads/operations";
import { getRunAllowance, putRunAllowance } from "./run-allowances";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "search.web", "PURE", { maxAttempts: 10, backoff: { baseMs: 10, maxMs: 20 } });
});
afterEach(async () => t.close());

/** Plans an operation of the run and fails its attempts until the gate stops retrying; returns the last view. */
async function failUntilStopped(runId: string, n: number, by: Actor = agent) {
  const { operation } = await planOperation(t.ledger, { tool: "search.web", args: { q: `q${n}` }, runId }, by, T0);
  let view = null;
  let clock = 1000 * n;
  for (let attempt = 1; attempt <= 10; attempt++) {
    clock += 100;
    const { fence } = await claimLease(t.ledger, operation.id, { workerId: "w", leaseMs: 60_000 }, by, at(clock));
    const sent = await dispatchOperation(t.ledger, operation.id, { fence }, by, at(clock + 1));
    // A retry the run's allowance refuses as it leaves ends the operation there.
    if ("refused" in sent) return getOperation(t.ledger, operation.id, at(clock + 1));
    view = await reportOutcome(
      t.ledger,
      operation.id,
      { fence, result: "failed", error: { httpStatus: 503 } },
      by,
      at(clock + 2),
      () => 0,
    );
    if (view.phase !== "RETRY_SCHEDULED") break;
  }
  if (view === null) throw new Error("no attempt was made");
  return view;
}

describe("who may read and declare a run's allowance", () => {
  it("another agent key, a person, and a run of another key's operations are all not found; nothing is written", async () => {
    await putRunAllowance(t.ledger, "run-a", { maxRetries: 3 }, agent, T0);
    expect(await codeOf(getRunAllowance(t.ledger, "run-a", otherAgent, T0))).toBe("not_found");
    expect(await codeOf(putRunAllowance(t.ledger, "run-a", { maxRetries: 99 }, otherAgent, T0))).toBe("not_found");
    expect(await codeOf(putRunAllowance(t.ledger, "run-a", { maxRetries: 99 }, viewer, T0))).toBe("not_found");
    expect((await getRunAllowance(t.ledger, "run-a", agent, T0)).maxRetries).toBe(3);

    await planOperation(t.ledger, { tool: "search.web", args: { q: "x" }, runId: "run-b" }, otherAgent, T0);
    expect(await codeOf(putRunAllowance(t.ledger, "run-b", { maxRetries: 1 }, agent, T0))).toBe("not_found");
    expect(await t.db.runAllowance.count({ where: { runId: "run-b" } })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { action: "run.allowance_set" } })).toBe(1);
  });

  it("the owner declares, replaces and reads it, with what is used and what is left", async () => {
    const created = await putRunAllowance(t.ledger, "run-c", { maxRetries: 2, maxBackoffMs: 5000 }, agent, T0);
    expect(created.created).toBe(true);
    const replaced = await putRunAllowance(
      t.ledger,
      "run-c",
      { maxRetries: 4, deadlineAt: at(60_000).toISOString() },
      agent,
      T0,
    );
    expect(replaced).toMatchObject({
      created: false,
      allowance: {
        runId: "run-c",
        maxRetries: 4,
        maxBackoffMs: null,
        deadlineAt: at(60_000).toISOString(),
        used: { retries: 0, backoffMs: 0 },
        remaining: { retries: 4, backoffMs: null, ms: 60_000 },
        exhaustedAt: null,
      },
    });
  });
});

describe("spending a run's allowance across its operations", () => {
  it("an outage: an allowance of 3 retries stops the run at 3 retries in all, then each failure fails at once", async () => {
    const environment = { OPLEDGER_SECRET_RUN_HOOK: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" };
    const hook = {
      url: "http://127.0.0.1:9/hook",
      events: ["run.allowance_exhausted"],
      secret: "OPLEDGER_SECRET_RUN_HOOK",
    };
    await putWebhook(t.ledger, "runs", hook, alice, T0, { allowPrivate: true, environment });
    await putRunAllowance(t.ledger, "run-outage", { maxRetries: 3 }, agent, T0);
    const first = await failUntilStopped("run-outage", 1);
    const second = await failUntilStopped("run-outage", 2);
    const third = await failUntilStopped("run-outage", 3);
    for (const view of [first, second, third]) {
      expect(view.phase).toBe("FAILED");
      expect(view.decision).toEqual({
        action: "STOP",
        reason: expect.stringContaining(
          "is not retried: the run run-outage has used its allowance of 3 retries across its operations",
        ) as string,
        runAllowance: { runId: "run-outage", bound: "retries" },
      });
      // A later read of the operation gives the same sentence, not the failed phase's general one.
      expect((await getOperation(t.ledger, view.id, at(99_000))).decision).toEqual(view.decision);
    }
    expect(first.attempt + second.attempt + third.attempt).toBe(3 + 3);
    const allowance = await getRunAllowance(t.ledger, "run-outage", agent, at(99_000));
    expect(allowance.used.retries).toBe(3);
    expect(allowance.exhaustedAt).not.toBeNull();
    expect(await t.db.auditEvent.count({ where: { action: "run.allowance_exhausted", subjectId: "run-outage" } })).toBe(
      1,
    );
    expect((await metricsSnapshot(t.ledger)).runAllowancesExhaustedTotal).toBe(1);
    await readAudit(t.ledger, at(99_000));
    const [queued] = await t.db.webhookDelivery.findMany({ where: { webhook: "runs" } });
    expect(queued?.eventType).toBe("run.allowance_exhausted");
    expect(JSON.parse(queued?.payloadJson ?? "{}")).toMatchObject({
      type: "run.allowance_exhausted",
      data: { runId: "run-outage", operationId: first.id, url: expect.stringContaining("/runs/run-outage") as string },
    });
  });

  it("a deadline: no retry leaves after it, and the reason says so", async () => {
    await putRunAllowance(t.ledger, "run-late", { deadlineAt: at(1105).toISOString() }, agent, T0);
    const view = await failUntilStopped("run-late", 1);
    expect(view.phase).toBe("FAILED");
    expect(view.decision.reason).toContain(`past the deadline of the run run-late (${at(1105).toISOString()})`);
  });

  it("another key's operation under the same run id spends nothing of it", async () => {
    await putRunAllowance(t.ledger, "run-d", { maxRetries: 1 }, agent, T0);
    const view = await failUntilStopped("run-d", 1, otherAgent);
    expect(view.attempt).toBe(10);
    expect((await getRunAllowance(t.ledger, "run-d", agent, T0)).used.retries).toBe(0);
  });
});

/** Plans, claims and dispatches an operation of the run; returns its id and fence. */
async function dispatched(runId: string, q: string, now: Date, tool = "search.web") {
  const { operation } = await planOperation(t.ledger, { tool, args: { q }, runId }, agent, now);
  const { fence } = await claimLease(t.ledger, operation.id, { workerId: "w", leaseMs: 600_000 }, agent, now);
  const first = await dispatchOperation(t.ledger, operation.id, { fence }, agent, now);
  if (!("operation" in first)) throw first.refused;
  return { id: operation.id, fence };
}

const failed = { result: "failed", error: { httpStatus: 503 } } as const;

describe("what the run's allowance gives, taken in the transaction that spends it", () => {
  it("two failures at once cannot both take the last retry: one is retried, the other stops", async () => {
    await putRunAllowance(t.ledger, "run-race", { maxRetries: 1 }, agent, T0);
    const a = await dispatched("run-race", "a", at(1));
    const b = await dispatched("run-race", "b", at(1));
    const views = await Promise.all(
      [a, b].map(({ id, fence }) => reportOutcome(t.ledger, id, { fence, ...failed }, agent, at(2), () => 0)),
    );
    expect(views.map((v) => v.phase).sort()).toEqual(["FAILED", "RETRY_SCHEDULED"]);
    expect(views.find((v) => v.phase === "FAILED")?.decision.runAllowance).toEqual({
      runId: "run-race",
      bound: "retries",
    });
    const allowance = await getRunAllowance(t.ledger, "run-race", agent, at(3));
    expect(allowance.used.retries).toBe(1);
    expect(await t.db.auditEvent.count({ where: { action: "run.allowance_exhausted" } })).toBe(1);
  });

  it("two failures at once cannot pass the run's total backoff", async () => {
    // Each retry of a backoff of base 10 and random 0.99 waits 9 or 10 ms: two do not fit in 15 ms.
    await putRunAllowance(t.ledger, "run-wait", { maxBackoffMs: 15 }, agent, T0);
    const ops = await Promise.all(["a", "b", "c"].map((q) => dispatched("run-wait", q, at(1))));
    const views = await Promise.all(
      ops.map(({ id, fence }) => reportOutcome(t.ledger, id, { fence, ...failed }, agent, at(2), () => 0.99)),
    );
    expect(views.filter((v) => v.phase === "RETRY_SCHEDULED")).toHaveLength(1);
    for (const view of views.filter((v) => v.phase === "FAILED")) {
      expect(view.decision.runAllowance?.bound).toBe("backoff");
    }
    const allowance = await getRunAllowance(t.ledger, "run-wait", agent, at(3));
    expect(allowance.used).toMatchObject({ retries: 1 });
    expect(allowance.used.backoffMs).toBeLessThanOrEqual(15);
  });

  it("a retry scheduled before the deadline and dispatched after it is refused, failed and audited", async () => {
    await putRunAllowance(t.ledger, "run-dl", { deadlineAt: at(1000).toISOString() }, agent, T0);
    const { id, fence } = await dispatched("run-dl", "x", at(1));
    const scheduled = await reportOutcome(t.ledger, id, { fence, ...failed }, agent, at(2), () => 0);
    expect(scheduled.phase).toBe("RETRY_SCHEDULED");
    const refused = await dispatchOperation(t.ledger, id, { fence }, agent, at(1001));
    if (!("refused" in refused)) throw new Error("the retry left after the run's deadline");
    expect(refused.refused.code).toBe("already_finished");
    expect(refused.refused.message).toBe(
      `Attempt 2 of 10 of a PURE tool is not dispatched: the next retry would leave at ${at(1001).toISOString()}, ` +
        `past the deadline of the run run-dl (${at(1000).toISOString()}).`,
    );
    const detail = await getOperation(t.ledger, id, at(5000));
    expect(detail.phase).toBe("FAILED");
    expect(detail.decision).toEqual({
      action: "STOP",
      reason: refused.refused.message,
      runAllowance: { runId: "run-dl", bound: "deadline" },
    });
    expect(detail.audit.at(-1)).toMatchObject({ action: "operation.failed", fromPhase: "RETRY_SCHEDULED" });
    expect((await getRunAllowance(t.ledger, "run-dl", agent, at(5000))).exhaustedAt).toBe(at(1001).toISOString());
  });

  it("a PURE operation's unknown outcome is retried on the run's allowance, and stopped once it is spent", async () => {
    await putRunAllowance(t.ledger, "run-pure", { maxRetries: 1 }, agent, T0);
    const { id, fence } = await dispatched("run-pure", "x", at(1));
    const unknown = await reportOutcome(t.ledger, id, { fence, result: "unknown" }, agent, at(2));
    expect(unknown.decision.action).toBe("RETRY");
    const retried = await dispatchOperation(t.ledger, id, { fence }, agent, at(3));
    expect("operation" in retried && retried.operation.attempt).toBe(2);
    expect((await getRunAllowance(t.ledger, "run-pure", agent, at(4))).used.retries).toBe(1);

    await reportOutcome(t.ledger, id, { fence, result: "unknown" }, agent, at(5));
    expect((await getOperation(t.ledger, id, at(6))).decision).toMatchObject({
      action: "STOP",
      runAllowance: { runId: "run-pure", bound: "retries" },
    });
    const refused = await dispatchOperation(t.ledger, id, { fence }, agent, at(7));
    expect("refused" in refused && refused.refused.message).toContain(
      "the run run-pure has used its allowance of 1 retry across its operations",
    );
    expect((await getOperation(t.ledger, id, at(8))).phase).toBe("FAILED");
    expect((await getRunAllowance(t.ledger, "run-pure", agent, at(8))).used.retries).toBe(1);
  });
});
