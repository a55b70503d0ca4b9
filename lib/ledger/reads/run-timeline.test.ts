// A run's timeline on a real database: its operations in plan order, each attempt's bar and the backoff gap before it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { at, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { runTimeline } from "./run-timeline";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  // Full jitter at random 0.5: the gate prescribes 1,000 ms before a retry; the agent waits 2,000.
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", {
    dependency: "stripe",
    backoff: { baseMs: 2_000, maxMs: 10_000 },
  });
  await withContract(t.ledger, "search.web", "PURE");
});
afterEach(async () => t.close());

describe("runTimeline", () => {
  it("draws the run's operations in plan order with each attempt's span and backoff, and only that run's", async () => {
    const s = await planAndClaim(t.ledger, { tool: "search.web", args: { q: 1 }, runId: "run-7" }, at(0));
    await dispatch(t.ledger, s.id, s.fence, at(100));
    await outcome(t.ledger, s.id, { fence: s.fence, result: "confirmed" }, at(400));
    const c = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: { n: 1 }, idempotencyKey: "c1", runId: "run-7" },
      at(500),
    );
    await dispatch(t.ledger, c.id, c.fence, at(600));
    await outcome(t.ledger, c.id, { fence: c.fence, result: "failed", error: { httpStatus: 503 } }, at(700));
    await dispatch(t.ledger, c.id, c.fence, at(2_700));
    await planAndClaim(t.ledger, { tool: "search.web", args: { q: 2 }, runId: "other" }, at(50));

    const timeline = await runTimeline(t.ledger, "run-7", at(5_000));
    expect(timeline.operations.map((o) => [o.tool, o.phase])).toEqual([
      ["search.web", "CONFIRMED"],
      ["payments.charge", "DISPATCHED"],
    ]);
    expect(timeline.operations[1]?.attempts).toEqual([
      {
        number: 1,
        result: "failed",
        backoffMs: 0,
        dispatchedAt: at(600).toISOString(),
        finishedAt: at(700).toISOString(),
        errorKind: expect.any(String) as string,
      },
      {
        number: 2,
        result: "in_flight",
        backoffMs: 1_000,
        dispatchedAt: at(2_700).toISOString(),
        finishedAt: null,
        errorKind: null,
      },
    ]);
    // The attempt still out runs to now.
    expect(timeline.from).toBe(at(0).toISOString());
    expect(timeline.to).toBe(at(5_000).toISOString());
    expect(timeline.totals).toEqual({ backoffMs: 1_000, callMs: 400, attempts: 3 });
    expect(timeline.truncated).toBe(false);
  });

  it("answers not_found for a run with no operations", async () => {
    await expect(runTimeline(t.ledger, "nope", at(0))).rejects.toMatchObject({ code: "not_found", status: 404 });
  });
});
