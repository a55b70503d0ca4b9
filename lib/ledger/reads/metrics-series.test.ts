// Chart series on a real database: audit actions and retries counted into aligned time buckets over a bounded window.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { metricsSnapshot } from "./metrics";
import { bucketBounds, metricSeries, windowSpec } from "./metrics-series";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
  await withContract(t.ledger, "search.web", "PURE");
});
afterEach(async () => t.close());

const MIN = 60_000;

async function recordAction(action: string, when: Date): Promise<void> {
  await t.ledger.store.transaction((tx) =>
    tx.appendAudit([{ subjectType: "operation", subjectId: "op", actor: agent, action, at: when }]),
  );
}

describe("windows and buckets", () => {
  it.each([
    ["1h", 60, MIN],
    ["24h", 96, 15 * MIN],
  ] as const)("the %s window has %i buckets of %i ms, aligned, the last one holding now", (window, count, bucketMs) => {
    const spec = windowSpec(window);
    expect(spec.bucketMs).toBe(bucketMs);
    const now = new Date(T0.getTime() + 7 * MIN + 1234);
    const bounds = bucketBounds(spec, now);
    expect(bounds.count).toBe(count);
    expect(bounds.from % bucketMs).toBe(0);
    expect(bounds.to - bounds.from).toBe(count * bucketMs);
    expect(now.getTime()).toBeGreaterThanOrEqual(bounds.to - bucketMs);
    expect(now.getTime()).toBeLessThan(bounds.to);
  });
});

describe("metricSeries", () => {
  it("counts each charted audit action in the bucket it happened in and ignores other actions and older records", async () => {
    const now = at(30 * MIN + 5_000); // 12:30:05, so the 1 h window starts at 11:31
    await recordAction("operation.outcome_unknown", at(29 * MIN)); // 12:29
    await recordAction("operation.outcome_unknown", at(29 * MIN + 59_000)); // 12:29:59, same minute
    await recordAction("operation.outcome_unknown", at(30 * MIN)); // 12:30, the bucket still filling
    await recordAction("operation.reconciled", at(-20 * MIN));
    await recordAction("operation.duplicate_rejected", at(-28 * MIN)); // 11:32
    await recordAction("operation.approval_requested", at(1 * MIN));
    await recordAction("operation.confirmed", at(1 * MIN)); // not charted
    await recordAction("operation.outcome_unknown", at(-31 * MIN)); // 11:29, before the window
    await recordAction("operation.outcome_unknown", at(-29 * MIN - 1)); // 11:30:59.999, before the window

    const series = await metricSeries(t.ledger, "1h", now);
    expect(series.buckets).toHaveLength(60);
    expect(series.from).toBe(at(-29 * MIN).toISOString());
    expect(series.to).toBe(at(31 * MIN).toISOString());
    const byStart = new Map(series.buckets.map((b) => [b.start, b]));
    expect(byStart.get(at(29 * MIN).toISOString())?.unknownOutcomes).toBe(2);
    expect(byStart.get(at(30 * MIN).toISOString())?.unknownOutcomes).toBe(1);
    expect(byStart.get(at(-20 * MIN).toISOString())?.reconciliations).toBe(1);
    expect(series.buckets[0]?.start).toBe(at(-29 * MIN).toISOString());
    expect(byStart.get(at(-28 * MIN).toISOString())?.duplicateRejections).toBe(1);
    expect(series.totals).toMatchObject({
      unknownOutcomes: 3,
      reconciliations: 1,
      duplicateRejections: 1,
      approvalInterruptions: 1,
    });
    const sum = series.buckets.reduce(
      (n, b) => n + b.unknownOutcomes + b.reconciliations + b.duplicateRejections + b.approvalInterruptions,
      0,
    );
    expect(sum).toBe(6);
  });

  it("puts the same records into 15-minute buckets for the 24 h window", async () => {
    await recordAction("operation.reconciled", at(-5 * 60 * MIN));
    await recordAction("operation.reconciled", at(-5 * 60 * MIN + 14 * MIN));
    await recordAction("operation.reconciled", at(-25 * 60 * MIN)); // older than a day
    const series = await metricSeries(t.ledger, "24h", at(0));
    expect(series.buckets).toHaveLength(96);
    expect(series.totals.reconciliations).toBe(2);
    expect(series.buckets.find((b) => b.start === at(-5 * 60 * MIN).toISOString())?.reconciliations).toBe(2);
  });

  it("counts attempts after the first by the effect class of their operation, at their dispatch time", async () => {
    const charge = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: {}, idempotencyKey: "k" },
      T0,
      "w1",
      3_600_000,
    );
    await dispatch(t.ledger, charge.id, charge.fence, at(1));
    await outcome(t.ledger, charge.id, { fence: charge.fence, result: "failed", error: { httpStatus: 503 } }, at(2));
    await dispatch(t.ledger, charge.id, charge.fence, at(2 * MIN)); // attempt 2
    const search = await planAndClaim(t.ledger, { tool: "search.web", args: {} }, T0, "w1", 3_600_000);
    await dispatch(t.ledger, search.id, search.fence, at(1));
    await outcome(t.ledger, search.id, { fence: search.fence, result: "failed", error: { kind: "timeout" } }, at(2));
    await dispatch(t.ledger, search.id, search.fence, at(3 * MIN)); // attempt 2
    await outcome(
      t.ledger,
      search.id,
      { fence: search.fence, result: "failed", error: { kind: "timeout" } },
      at(3 * MIN + 1),
    );
    await dispatch(t.ledger, search.id, search.fence, at(3 * MIN + 10_000)); // attempt 3, same minute

    const series = await metricSeries(t.ledger, "1h", at(10 * MIN));
    expect(series.totals.retries).toEqual({ PURE: 2, IDEMPOTENT: 1, REPLAYABLE: 0, UNKNOWN: 0, NON_RETRYABLE: 0 });
    expect(series.buckets.find((b) => b.start === at(3 * MIN).toISOString())?.retries.PURE).toBe(2);
    expect(series.buckets.find((b) => b.start === at(2 * MIN).toISOString())?.retries.IDEMPOTENT).toBe(1);
    // The chart and the Prometheus export agree on the totals.
    expect((await metricsSnapshot(t.ledger)).retriesByEffect).toEqual(series.totals.retries);
    // Per tool, the tool with most retries first, each count in its bucket.
    const index = (ms: number) => series.buckets.findIndex((b) => b.start === at(ms).toISOString());
    expect(series.toolRetries.map((r) => [r.tool, r.total])).toEqual([
      ["search.web", 2],
      ["payments.charge", 1],
    ]);
    expect(series.toolRetries[0]?.counts[index(3 * MIN)]).toBe(2);
    expect(series.toolRetries[1]?.counts[index(2 * MIN)]).toBe(1);
    expect(series.toolRetries[0]?.counts).toHaveLength(series.buckets.length);
  });

  it("returns zero-filled buckets when nothing happened", async () => {
    const series = await metricSeries(t.ledger, "1h", T0);
    expect(series.buckets.every((b) => b.unknownOutcomes === 0 && Object.values(b.retries).every((n) => n === 0))).toBe(
      true,
    );
    expect(series.totals.unknownOutcomes).toBe(0);
    expect(series.toolRetries).toEqual([]);
  });
});
