// Where the wall-clock went, on a real database: the backoff dispatch records, the sums per tool and per dependency
// over a window, and the Prometheus export of both (parsed as the text exposition format).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { at, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { labelValue, metricsSnapshot, prometheusText, wallClockTotals } from "./metrics";
import { ATTEMPT_SECONDS_BUCKETS, attemptHistograms, wallClock } from "./wall-clock";

let t: TestDb;
let charge: string;
beforeEach(async () => {
  t = await createTestDb();
  // Full jitter at random 0.5: the gate prescribes half the base, 1,000 ms, before the second attempt.
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", {
    dependency: "stripe",
    backoff: { baseMs: 2_000, maxMs: 10_000 },
  });
  await withContract(t.ledger, "search.web", "PURE");
  // A charge: 200 ms call that fails, 1,800 ms until the next (1,000 ms of it the gate's backoff, 800 ms the agent's
  // own delay), 500 ms call that succeeds.
  const c = await planAndClaim(t.ledger, { tool: "payments.charge", args: { n: 1 }, idempotencyKey: "c1" }, at(0));
  charge = c.id;
  await dispatch(t.ledger, c.id, c.fence, at(1_000));
  await outcome(t.ledger, c.id, { fence: c.fence, result: "failed", error: { httpStatus: 503 } }, at(1_200));
  await dispatch(t.ledger, c.id, c.fence, at(3_000));
  await outcome(t.ledger, c.id, { fence: c.fence, result: "confirmed" }, at(3_500));
  // A search: one 50 ms call.
  const s = await planAndClaim(t.ledger, { tool: "search.web", args: { q: "x" } }, at(1_900));
  await dispatch(t.ledger, s.id, s.fence, at(2_000));
  await outcome(t.ledger, s.id, { fence: s.fence, result: "confirmed" }, at(2_050));
  // A second charge, still out.
  const d = await planAndClaim(t.ledger, { tool: "payments.charge", args: { n: 2 }, idempotencyKey: "c2" }, at(3_900));
  await dispatch(t.ledger, d.id, d.fence, at(4_000));
});
afterEach(async () => t.close());

describe("the backoff dispatch records", () => {
  it("is the wait the gate prescribed, as far as it was waited: not the agent's own delay, and none before the first", async () => {
    const attempts = await t.db.attempt.findMany({ where: { operationId: charge }, orderBy: { number: "asc" } });
    expect(attempts.map((a) => [a.number, a.backoffMs])).toEqual([
      [1, 0],
      [2, 1_000],
    ]);
  });
});

describe("wallClock", () => {
  it("sums backoff and call time per tool and per dependency, counting attempts still out", async () => {
    const split = await wallClock(t.ledger, at(0), at(60_000));
    expect(split.byTool).toEqual([
      { tool: "payments.charge", backoffMs: 1_000, callMs: 700, attempts: 3, inFlight: 1 },
      { tool: "search.web", backoffMs: 0, callMs: 50, attempts: 1, inFlight: 0 },
    ]);
    expect(split.byDependency).toEqual([
      { dependency: "stripe", backoffMs: 1_000, callMs: 700, attempts: 3, inFlight: 1 },
      { dependency: null, backoffMs: 0, callMs: 50, attempts: 1, inFlight: 0 },
    ]);
    expect(split.total).toEqual({ backoffMs: 1_000, callMs: 750, attempts: 4, inFlight: 1 });
  });

  it("counts only the attempts dispatched inside the window", async () => {
    const split = await wallClock(t.ledger, at(2_500), at(3_600));
    expect(split.byTool).toEqual([
      { tool: "payments.charge", backoffMs: 1_000, callMs: 500, attempts: 1, inFlight: 0 },
    ]);
    expect((await wallClock(t.ledger, at(10_000), at(20_000))).byTool).toEqual([]);
  });
});

describe("attemptHistograms", () => {
  it("counts finished attempts into cumulative buckets per tool, a duration on a bound counting in it", async () => {
    const histograms = await attemptHistograms(t.ledger);
    const le = (h: (typeof histograms)[number], bound: number) =>
      h.buckets[ATTEMPT_SECONDS_BUCKETS.indexOf(bound as (typeof ATTEMPT_SECONDS_BUCKETS)[number])];
    const [chargeH, searchH] = histograms;
    expect(chargeH).toMatchObject({ tool: "payments.charge", count: 2 });
    expect(chargeH?.sumSeconds).toBeCloseTo(0.7, 6);
    expect(chargeH && [le(chargeH, 0.1), le(chargeH, 0.25), le(chargeH, 0.5), le(chargeH, 300)]).toEqual([0, 1, 2, 2]);
    expect(searchH).toMatchObject({ tool: "search.web", count: 1 });
    expect(searchH && le(searchH, 0.05)).toBe(1);
  });
});

/** A strict reader of the Prometheus text exposition format (0.0.4): families, samples, and the histogram rules. */
function parseExposition(text: string) {
  const families = new Map<
    string,
    { type: string; help: string; samples: { name: string; labels: Record<string, string>; value: number }[] }
  >();
  expect(text.endsWith("\n")).toBe(true);
  let current: string | null = null;
  for (const line of text.slice(0, -1).split("\n")) {
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (help) {
      families.set(help[1] as string, { type: "", help: help[2] as string, samples: [] });
      current = help[1] as string;
      continue;
    }
    if (type) {
      const family = families.get(type[1] as string);
      expect(family, `TYPE before HELP for ${type[1]}`).toBeDefined();
      if (family) family.type = type[2] as string;
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    expect(sample, `not a sample line: ${line}`).not.toBeNull();
    const [, name, , rawLabels, rawValue] = sample as RegExpExecArray;
    const labels: Record<string, string> = {};
    const labelRe = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\["\\n])*)"(,|$)/y;
    let pos = 0;
    while (rawLabels !== undefined && pos < rawLabels.length) {
      labelRe.lastIndex = pos;
      const m = labelRe.exec(rawLabels);
      expect(m, `bad labels: ${rawLabels}`).not.toBeNull();
      if (!m) break;
      labels[m[1] as string] = (m[2] as string).replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c));
      pos = labelRe.lastIndex;
    }
    const value = rawValue === "+Inf" ? Infinity : Number(rawValue);
    expect(Number.isNaN(value), `bad value in ${line}`).toBe(false);
    const family = current ? families.get(current) : undefined;
    expect(family && (name === current || name?.startsWith(`${current}_`)), `${name} outside its family`).toBeTruthy();
    family?.samples.push({ name: name as string, labels, value });
  }
  return families;
}

describe("the Prometheus export", () => {
  it("is valid exposition text with the backoff counter by tool and dependency and the attempt histogram by tool", async () => {
    const text = prometheusText(await metricsSnapshot(t.ledger), await wallClockTotals(t.ledger));
    const families = parseExposition(text);
    const backoff = families.get("opledger_backoff_seconds_total");
    expect(backoff?.type).toBe("counter");
    expect(backoff?.samples).toEqual(
      expect.arrayContaining([
        {
          name: "opledger_backoff_seconds_total",
          labels: { tool: "payments.charge", dependency: "stripe" },
          value: 1,
        },
        { name: "opledger_backoff_seconds_total", labels: { tool: "search.web", dependency: "" }, value: 0 },
      ]),
    );
    const histogram = families.get("opledger_attempt_seconds");
    expect(histogram?.type).toBe("histogram");
    for (const tool of ["payments.charge", "search.web"]) {
      const samples = histogram?.samples.filter((s) => s.labels.tool === tool) ?? [];
      const buckets = samples.filter((s) => s.name === "opledger_attempt_seconds_bucket");
      const bounds = buckets.map((b) => (b.labels.le === "+Inf" ? Infinity : Number(b.labels.le)));
      expect(bounds).toEqual([...ATTEMPT_SECONDS_BUCKETS, Infinity]);
      const counts = buckets.map((b) => b.value);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      const count = samples.find((s) => s.name === "opledger_attempt_seconds_count")?.value;
      expect(counts.at(-1)).toBe(count);
      expect(samples.find((s) => s.name === "opledger_attempt_seconds_sum")).toBeDefined();
    }
    expect(
      histogram?.samples.find((s) => s.name === "opledger_attempt_seconds_count" && s.labels.tool === "payments.charge")
        ?.value,
    ).toBe(2);
    // The series that were there before are still there.
    expect(families.get("opledger_retries_total")?.type).toBe("counter");
  });

  it("escapes label values so a tool name cannot break the format", () => {
    expect(labelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    const text = prometheusText(
      {
        unknownOutcomes: 0,
        unknownOutcomesTotal: 0,
        reconciliationsTotal: 0,
        duplicateRejectionsTotal: 0,
        approvalInterruptionsTotal: 0,
        staleFenceRejectionsTotal: 0,
        runAllowancesExhaustedTotal: 0,
        retriesByEffect: {},
        operationsByPhase: {},
      },
      {
        backoff: [{ tool: 'odd"tool\nname', dependency: null, seconds: 1 }],
        attemptSeconds: [
          { tool: 'odd"tool', buckets: ATTEMPT_SECONDS_BUCKETS.map(() => 1), sumSeconds: 0.01, count: 1 },
        ],
      },
    );
    const families = parseExposition(text);
    expect(families.get("opledger_backoff_seconds_total")?.samples[0]?.labels.tool).toBe('odd"tool\nname');
  });
});
