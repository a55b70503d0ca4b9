// A run's allowance in the gate: no retry is scheduled past the run's deadline, beyond its retries or its backoff, and
// a run without bounds changes nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideAfterFailure } from "./decide";
import {
  NOW,
  TIMEOUT,
  arbClassifiedError,
  arbGateInput,
  gateInput,
  seededRandom,
} from "./gate-arbitraries.test-helper";
import { runAllowanceRefusal, type RunBudget } from "./run-allowance";

const arbRun: fc.Arbitrary<RunBudget> = fc.record({
  runId: fc.constant("run-1"),
  deadlineAt: fc.option(fc.integer({ min: NOW - 10_000, max: NOW + 120_000 }), { nil: null }),
  maxRetries: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
  maxBackoffMs: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: null }),
  retriesUsed: fc.integer({ min: 0, max: 6 }),
  backoffUsedMs: fc.integer({ min: 0, max: 60_000 }),
});

const UNBOUNDED: RunBudget = {
  runId: "run-1",
  deadlineAt: null,
  maxRetries: null,
  maxBackoffMs: null,
  retriesUsed: 3,
  backoffUsedMs: 5000,
};

describe("a run's allowance, for every failure", () => {
  it("never schedules a retry past the deadline, beyond the retries or beyond the backoff it allows", () => {
    fc.assert(
      fc.property(arbGateInput, arbRun, arbClassifiedError, fc.nat(), (input, run, error, seed) => {
        const step = decideAfterFailure({ ...input, run }, error, seededRandom(seed));
        if (step.phase !== "RETRY_SCHEDULED") return;
        const wait = (step.notBefore ?? input.now) - input.now;
        if (run.maxRetries !== null) expect(run.retriesUsed).toBeLessThan(run.maxRetries);
        if (run.deadlineAt !== null) expect(step.notBefore ?? input.now).toBeLessThanOrEqual(run.deadlineAt);
        if (run.maxBackoffMs !== null) expect(run.backoffUsedMs + wait).toBeLessThanOrEqual(run.maxBackoffMs);
      }),
    );
  });

  it("a run without bounds, or no run, decides as before", () => {
    fc.assert(
      fc.property(arbGateInput, arbClassifiedError, fc.nat(), (input, error, seed) => {
        const { run: _none, ...plain } = input;
        const before = decideAfterFailure(plain, error, seededRandom(seed));
        expect(decideAfterFailure({ ...plain, run: null }, error, seededRandom(seed))).toEqual(before);
        expect(decideAfterFailure({ ...plain, run: UNBOUNDED }, error, seededRandom(seed))).toEqual(before);
      }),
    );
  });

  it("only ever turns a scheduled retry into a failure: every other step is the same", () => {
    fc.assert(
      fc.property(arbGateInput, arbRun, arbClassifiedError, fc.nat(), (input, run, error, seed) => {
        const without = decideAfterFailure({ ...input, run: null }, error, seededRandom(seed));
        const within = decideAfterFailure({ ...input, run }, error, seededRandom(seed));
        if (without.phase !== "RETRY_SCHEDULED") expect(within).toEqual(without);
        else expect(["RETRY_SCHEDULED", "FAILED"]).toContain(within.phase);
      }),
    );
  });
});

describe("the gate's STOP names the allowance in words", () => {
  const failing = gateInput("IDEMPOTENT", { phase: "DISPATCHED", attempt: 1 }, { maxAttempts: 5 });

  it("when the run's retries are spent", () => {
    const step = decideAfterFailure({ ...failing, run: { ...UNBOUNDED, maxRetries: 3 } }, TIMEOUT, () => 0.5);
    expect(step.phase).toBe("FAILED");
    expect(step.decision).toEqual({
      action: "STOP",
      reason:
        "Attempt 1 of 5 of an IDEMPOTENT tool failed with transient error timeout and is not retried: the run run-1 " +
        "has used its allowance of 3 retries across its operations.",
    });
  });

  it("when the next retry would leave after the deadline", () => {
    const run = { ...UNBOUNDED, deadlineAt: NOW + 10 };
    const step = decideAfterFailure({ ...failing, run }, TIMEOUT, () => 0.99);
    expect(step.decision.reason).toContain(`past the deadline of the run run-1 (${new Date(NOW + 10).toISOString()})`);
  });

  it("when the backoff would pass the run's total", () => {
    expect(runAllowanceRefusal({ ...UNBOUNDED, maxBackoffMs: 5100 }, NOW, 200)).toBe(
      "a backoff of 200 ms would bring the run run-1 to 5200 ms of backoff, beyond its allowance of 5100 ms",
    );
    expect(runAllowanceRefusal({ ...UNBOUNDED, maxBackoffMs: 5200 }, NOW, 200)).toBeNull();
  });
});
