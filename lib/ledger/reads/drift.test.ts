// Drift: the rule that marks a tool whose UNKNOWN share rose above its week's level (pure, table-driven), and the
// outcome mix and per-tool shares counted on a real database.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { DRIFT_RULE, outcomeMix, unknownDrift, unknownDriftByTool } from "./drift";

describe("unknownDrift (the rule)", () => {
  it.each([
    // recent finished/unknown, baseline finished/unknown, marked
    ["a jump from 2% to 30%", [20, 6], [100, 2], true],
    ["exactly twice and 5 points above", [40, 4], [100, 5], true],
    ["twice but less than 5 points above", [100, 4], [100, 2], false],
    ["5 points above but not twice", [100, 15], [100, 10], false],
    ["steady at its level", [50, 10], [500, 100], false],
    ["falling", [50, 1], [500, 100], false],
    ["too few recent attempts", [9, 9], [100, 0], false],
    ["too few recent unknowns", [100, 2], [100, 0], false],
    ["no baseline to rise above", [20, 10], [19, 0], false],
    ["from none at all to some", [40, 4], [200, 0], true],
  ] as const)("%s", (_, [rf, ru], [bf, bu], marked) => {
    const verdict = unknownDrift({ finished: rf, unknown: ru }, { finished: bf, unknown: bu });
    expect(verdict.drifting).toBe(marked);
    expect(verdict.reason).not.toBe("");
    expect(verdict.recentShare).toBeCloseTo(ru / rf, 9);
  });

  it("states its thresholds", () => {
    expect(DRIFT_RULE).toMatchObject({ RISE_FACTOR: 2, MIN_RISE: 0.05, BASELINE_MS: 7 * 86_400_000 });
  });
});

describe("on a database", () => {
  let t: TestDb;
  let n = 0;
  beforeEach(async () => {
    t = await createTestDb();
    await withContract(t.ledger, "email.send", "NON_RETRYABLE");
    await withContract(t.ledger, "search.web", "PURE");
  });
  afterEach(async () => t.close());

  /** One operation with one finished attempt of that result, dispatched at `when` (a read model's input, written directly). */
  async function attempt(tool: string, effect: string, result: string, when: Date): Promise<string> {
    n += 1;
    const id = `op-${n}`;
    await t.db.operation.create({
      data: {
        id,
        tool,
        contractVersion: 1,
        effect,
        idempotencyKey: `k-${n}`,
        argsJson: "{}",
        argsHash: "h",
        phase: result === "confirmed" ? "CONFIRMED" : result === "unknown" ? "UNKNOWN" : "FAILED",
        attempt: 1,
        createdAt: when,
      },
    });
    await t.db.attempt.create({
      data: {
        id: `a-${n}`,
        operationId: id,
        number: 1,
        workerId: "w",
        fence: 1,
        result,
        dispatchedAt: when,
        finishedAt: result === "in_flight" ? null : new Date(when.getTime() + 10),
      },
    });
    return id;
  }

  it("counts the outcome mix per bucket and effect class, approvals from the audit trail, attempts still out left aside", async () => {
    const MIN = 60_000;
    await attempt("email.send", "NON_RETRYABLE", "confirmed", at(0));
    await attempt("email.send", "NON_RETRYABLE", "unknown", at(MIN - 1));
    await attempt("email.send", "NON_RETRYABLE", "failed", at(MIN));
    await attempt("search.web", "PURE", "confirmed", at(MIN + 5));
    await attempt("search.web", "PURE", "in_flight", at(MIN + 6));
    const waiting = await attempt("email.send", "NON_RETRYABLE", "failed", at(2 * MIN));
    await t.ledger.store.transaction((tx) =>
      tx.appendAudit([
        {
          subjectType: "operation",
          subjectId: waiting,
          actor: agent,
          action: "operation.approval_requested",
          at: at(2 * MIN + 1),
        },
      ]),
    );
    // Outside the window: not counted.
    await attempt("email.send", "NON_RETRYABLE", "unknown", at(3 * MIN));
    const mix = await outcomeMix(t.ledger, T0, MIN, 3);
    expect(mix.buckets.map((b) => b.byEffect.NON_RETRYABLE)).toEqual([
      { confirmed: 1, unknown: 1, failed: 0, approval: 0 },
      { confirmed: 0, unknown: 0, failed: 1, approval: 0 },
      { confirmed: 0, unknown: 0, failed: 1, approval: 1 },
    ]);
    expect(mix.buckets.map((b) => b.byEffect.PURE.confirmed)).toEqual([0, 1, 0]);
    expect(mix.totals.NON_RETRYABLE).toEqual({ confirmed: 1, unknown: 1, failed: 2, approval: 1 });
    expect(mix.buckets[0]?.start).toBe(T0.toISOString());
  });

  it("marks the tool whose UNKNOWN share rose above its week's level, and only it", async () => {
    const DAY = 86_400_000;
    const weekAgo = (k: number) => at(-DAY - k * 60_000);
    // The week before: email 1 unknown in 25, search 5 in 25.
    for (let i = 0; i < 25; i += 1) {
      await attempt("email.send", "NON_RETRYABLE", i === 0 ? "unknown" : "confirmed", weekAgo(i));
      await attempt("search.web", "PURE", i < 5 ? "unknown" : "confirmed", weekAgo(i));
    }
    // Recently: email 4 unknown in 12 (33%), search 2 unknown in 12 (17%, below its 20%).
    for (let i = 0; i < 12; i += 1) {
      await attempt("email.send", "NON_RETRYABLE", i < 4 ? "unknown" : "confirmed", at(i * 1000));
      await attempt("search.web", "PURE", i < 2 ? "unknown" : "confirmed", at(i * 1000));
    }
    // Older than the week before: ignored.
    for (let i = 0; i < 5; i += 1) await attempt("email.send", "NON_RETRYABLE", "confirmed", at(-9 * DAY));
    const drift = await unknownDriftByTool(t.ledger, T0, at(DAY));
    expect(drift.map((d) => [d.tool, d.drifting, d.recent, d.baseline])).toEqual([
      ["email.send", true, { finished: 12, unknown: 4 }, { finished: 25, unknown: 1 }],
      ["search.web", false, { finished: 12, unknown: 2 }, { finished: 25, unknown: 5 }],
    ]);
  });
});
