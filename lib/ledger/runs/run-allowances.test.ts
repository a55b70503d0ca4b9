// A run's allowance on a real database: only the key that owns the run reads or declares it, and its retries, deadline
// and backoff are spent across the run's operations, the gate stopping them with the reason in words.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/ledger/actor";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, otherAgent, T0, viewer, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf } from "@/tests/helpers/lifecycle";
import { claimLease } from "@/lib/ledger/commands/lease";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { planOperation } from "@/lib/ledger/commands/plan";
import { metricsSnapshot } from "@/lib/ledger/reads/metrics";
import { readAudit } from "@/lib/notify/audit-reader";
import { putWebhook } from "@/lib/notify/webhooks";
import { getRunAllowance, putRunAllowance } from "./run-allowances";
import { reportOutcomeInRun } from "./run-outcome";

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
    await dispatchOperation(t.ledger, operation.id, { fence }, by, at(clock + 1));
    view = await reportOutcomeInRun(
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
      });
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
