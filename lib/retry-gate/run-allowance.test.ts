// A run's allowance in the gate: no retry is scheduled past the run's deadline, beyond its retries or its backoff, none
// leaves past the deadline or beyond the retries when it is dispatched, every refusal says which bound as data, and a
// run without bounds changes nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, decideAfterFailure, retryCountedWhenScheduled } from "./decide";
import {
  NOW,
  TIMEOUT,
  arbClassifiedError,
  arbGateInput,
  gateInput,
  seededRandom,
} from "./gate-arbitraries.test-helper";
import { RUN_ALLOWANCE_BOUNDS, runAllowanceRefusal, type RunBudget } from "./run-allowance";
import { letsAttemptGo } from "./types";

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

  it("only ever turns a scheduled retry into a failure, and exactly that failure names the run and the bound", () => {
    fc.assert(
      fc.property(arbGateInput, arbRun, arbClassifiedError, fc.nat(), (input, run, error, seed) => {
        const without = decideAfterFailure({ ...input, run: null }, error, seededRandom(seed));
        const within = decideAfterFailure({ ...input, run }, error, seededRandom(seed));
        expect(without.decision.runAllowance).toBeUndefined();
        if (without.phase !== "RETRY_SCHEDULED") {
          expect(within).toEqual(without);
          return;
        }
        if (within.phase === "RETRY_SCHEDULED") {
          expect(within.decision.runAllowance).toBeUndefined();
          return;
        }
        expect(within.phase).toBe("FAILED");
        expect(within.decision.action).toBe("STOP");
        expect(within.decision.runAllowance?.runId).toBe("run-1");
        expect(RUN_ALLOWANCE_BOUNDS).toContain(within.decision.runAllowance?.bound);
      }),
    );
  });
});

describe("a run's allowance, when a retry is to leave", () => {
  it("no retry goes past the deadline, nor beyond the retries when it was not counted when scheduled", () => {
    fc.assert(
      fc.property(arbGateInput, arbRun, (input, run) => {
        const decision = decide({ ...input, run });
        const op = input.operation;
        if (!letsAttemptGo(decision.action) || op.attempt === 0) return;
        const leavesAt = input.now + (decision.retryAfterMs ?? 0);
        if (run.deadlineAt !== null) expect(leavesAt).toBeLessThanOrEqual(run.deadlineAt);
        if (run.maxRetries !== null && !retryCountedWhenScheduled(op)) {
          expect(run.retriesUsed).toBeLessThan(run.maxRetries);
        }
      }),
    );
  });

  it("only turns a retry that would go into STOP naming the run; first attempts and everything else are as before", () => {
    fc.assert(
      fc.property(arbGateInput, arbRun, (input, run) => {
        const without = decide({ ...input, run: null });
        const within = decide({ ...input, run });
        expect(decide({ ...input, run: { ...UNBOUNDED, retriesUsed: 0 } })).toEqual(without);
        if (!letsAttemptGo(without.action) || input.operation.attempt === 0) {
          expect(within).toEqual(without);
          return;
        }
        if (within.action === "STOP") expect(within.runAllowance?.runId).toBe("run-1");
        else expect(within).toEqual(without);
      }),
    );
  });
});

describe("the gate's STOP names the allowance in words and as data", () => {
  const failing = gateInput("IDEMPOTENT", { phase: "DISPATCHED", attempt: 1 }, { maxAttempts: 5 });

  it("when the run's retries are spent", () => {
    const step = decideAfterFailure({ ...failing, run: { ...UNBOUNDED, maxRetries: 3 } }, TIMEOUT, () => 0.5);
    expect(step.phase).toBe("FAILED");
    expect(step.decision).toEqual({
      action: "STOP",
      reason:
        "Attempt 1 of 5 of an IDEMPOTENT tool failed with transient error timeout and is not retried: the run run-1 " +
        "has used its allowance of 3 retries across its operations.",
      runAllowance: { runId: "run-1", bound: "retries" },
    });
  });

  it("when the next retry would leave after the deadline", () => {
    const run = { ...UNBOUNDED, deadlineAt: NOW + 10 };
    const step = decideAfterFailure({ ...failing, run }, TIMEOUT, () => 0.99);
    expect(step.decision.reason).toContain(`past the deadline of the run run-1 (${new Date(NOW + 10).toISOString()})`);
    expect(step.decision.runAllowance).toEqual({ runId: "run-1", bound: "deadline" });
  });

  it("when the backoff would pass the run's total", () => {
    expect(runAllowanceRefusal({ ...UNBOUNDED, maxBackoffMs: 5100 }, NOW, 200)).toEqual({
      runId: "run-1",
      bound: "backoff",
      clause: "a backoff of 200 ms would bring the run run-1 to 5200 ms of backoff, beyond its allowance of 5100 ms",
    });
    expect(runAllowanceRefusal({ ...UNBOUNDED, maxBackoffMs: 5200 }, NOW, 200)).toBeNull();
  });

  it("a retry scheduled before the deadline and dispatched after it is not dispatched", () => {
    const scheduled = gateInput("IDEMPOTENT", { phase: "RETRY_SCHEDULED", attempt: 1, notBefore: NOW - 50 });
    const run = { ...UNBOUNDED, deadlineAt: NOW - 1, maxRetries: 1, retriesUsed: 1 };
    expect(decide({ ...scheduled, run })).toEqual({
      action: "STOP",
      reason:
        `Attempt 2 of 3 of an IDEMPOTENT tool is not dispatched: the next retry would leave at ` +
        `${new Date(NOW).toISOString()}, past the deadline of the run run-1 (${new Date(NOW - 1).toISOString()}).`,
      runAllowance: { runId: "run-1", bound: "deadline" },
    });
    // Its retry was counted when it was scheduled: within the deadline it goes, though the count is now spent.
    expect(decide({ ...scheduled, run: { ...run, deadlineAt: NOW } }).action).toBe("RETRY_SAME_KEY");
  });

  it("a PURE operation's unknown outcome is retried only while the run has a retry left", () => {
    const unknown = gateInput("PURE", { phase: "UNKNOWN", attempt: 1 });
    expect(retryCountedWhenScheduled(unknown.operation)).toBe(false);
    expect(decide({ ...unknown, run: { ...UNBOUNDED, maxRetries: 4 } }).action).toBe("RETRY");
    expect(decide({ ...unknown, run: { ...UNBOUNDED, maxRetries: 3 } })).toEqual({
      action: "STOP",
      reason:
        "Attempt 2 of 3 of a PURE tool is not dispatched: the run run-1 has used its allowance of 3 retries across " +
        "its operations.",
      runAllowance: { runId: "run-1", bound: "retries" },
    });
  });

  it("a retry a person approved is counted when it leaves, not when it was scheduled", () => {
    const approved = gateInput("IDEMPOTENT", { phase: "RETRY_SCHEDULED", attempt: 2, approvedAttempt: 3 });
    expect(retryCountedWhenScheduled(approved.operation)).toBe(false);
    expect(decide({ ...approved, run: { ...UNBOUNDED, maxRetries: 3 } }).runAllowance?.bound).toBe("retries");
  });
});
