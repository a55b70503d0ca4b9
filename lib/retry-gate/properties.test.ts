// Property-based tests: what must hold for every gate input, not only for the rows someone thought of.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { approvalExpired } from "./approval-expiry";
import { backoffCap, backoffDelay, retryDelay } from "./backoff";
import {
  CLOSED_BREAKER,
  breakerAllowsDispatch,
  effectiveBreakerState,
  nextBreaker,
  type BreakerEvent,
} from "./breaker";
import { classifyError, parseRetryAfter } from "./classify-error";
import { decide, decideAfterFailure } from "./decide";
import {
  arbBreaker,
  arbBreakerConfig,
  arbClassifiedError,
  arbGateInput,
  seededRandom,
} from "./gate-arbitraries.test-helper";
import { isLegalTransition } from "./phases";
import { type Decision, type DecisionAction, type GateInput } from "./types";

const GOES: ReadonlySet<DecisionAction> = new Set(["DISPATCH", "RETRY", "RETRY_SAME_KEY"]);
const RETRIES: ReadonlySet<DecisionAction> = new Set(["RETRY", "RETRY_SAME_KEY"]);
const withPhase = (input: GateInput, phase: GateInput["operation"]["phase"]): GateInput => ({
  ...input,
  operation: { ...input.operation, phase },
});

function wellFormed(decision: Decision): void {
  expect(decision.reason.trim()).not.toBe("");
  expect(decision.reason).toMatch(/^[A-Z][^\n]*\.$/);
  if (decision.retryAfterMs !== undefined) {
    expect(Number.isFinite(decision.retryAfterMs)).toBe(true);
    expect(decision.retryAfterMs).toBeGreaterThanOrEqual(0);
  }
}

describe("decide, for every input", () => {
  test("is deterministic: the same input gives the same decision, also after a JSON round trip", () => {
    fc.assert(
      fc.property(arbGateInput, (input) => {
        const first = decide(input);
        expect(decide(structuredClone(input))).toEqual(first);
        const viaJson = JSON.parse(JSON.stringify(input)) as GateInput;
        expect(JSON.stringify(decide(viaJson))).toBe(JSON.stringify(first));
      }),
    );
  });

  test("gives a decision with a one-sentence reason and a non-negative wait", () => {
    fc.assert(fc.property(arbGateInput, (input) => wellFormed(decide(input))));
  });

  test("a CONFIRMED operation is never dispatched or retried", () => {
    fc.assert(
      fc.property(arbGateInput, (input) => {
        expect(decide(withPhase(input, "CONFIRMED")).action).toBe("STOP");
      }),
    );
  });

  test("finished operations stop, in-flight operations wait", () => {
    fc.assert(
      fc.property(arbGateInput, fc.constantFrom("CONFIRMED", "FAILED", "REJECTED", "EXPIRED"), (input, phase) => {
        expect(decide(withPhase(input, phase)).action).toBe("STOP");
      }),
    );
    fc.assert(
      fc.property(arbGateInput, fc.constantFrom("DISPATCHED", "AUTHORIZED"), (input, phase) => {
        expect(decide(withPhase(input, phase)).action).toBe("WAIT");
      }),
    );
  });

  test("a request for a person is never approved by default: past its deadline it stops, before it waits", () => {
    fc.assert(
      fc.property(arbGateInput, fc.integer({ min: -1_000_000, max: 1_000_000 }), (generated, offset) => {
        const deadline = generated.now + offset;
        const input = withPhase(
          { ...generated, operation: { ...generated.operation, approvalExpiresAt: deadline } },
          "AWAITING_APPROVAL",
        );
        const decision = decide(input);
        expect(decision.action).toBe(generated.now > deadline ? "STOP" : "APPROVAL");
        expect(approvalExpired(input.operation, input.now)).toBe(generated.now > deadline);
        // The same answer once the sweep has moved it: nothing in between can approve or dispatch it.
        if (decision.action === "STOP") expect(decide(withPhase(input, "EXPIRED"))).toEqual(decision);
      }),
    );
  });

  test("NON_RETRYABLE is never retried unless a person approved exactly the next attempt", () => {
    fc.assert(
      fc.property(arbGateInput, (generated) => {
        const input = { ...generated, contract: { ...generated.contract, effect: "NON_RETRYABLE" as const } };
        const { approvedAttempt, attempt } = input.operation;
        if (RETRIES.has(decide(input).action)) expect(approvedAttempt).toBe(attempt + 1);
      }),
    );
  });

  test("an approval grants one attempt: once it is spent, the same approval allows no further retry", () => {
    fc.assert(
      fc.property(
        arbGateInput,
        fc.constantFrom("RETRY_SCHEDULED", "RECONCILED", "PLANNED", "UNKNOWN"),
        (generated, phase) => {
          const approved = generated.operation.attempt + 1;
          const base: GateInput = {
            ...generated,
            contract: { ...generated.contract, effect: "NON_RETRYABLE" },
            operation: { ...generated.operation, phase, approvedAttempt: approved },
          };
          // The approved attempt went out and failed: the budget counts it, the approval stays recorded.
          const spent: GateInput = { ...base, operation: { ...base.operation, attempt: approved } };
          expect(RETRIES.has(decide(spent).action)).toBe(false);
          expect(decide(spent).action).not.toBe("DISPATCH");
        },
      ),
    );
  });

  test("an open breaker never lets an attempt go", () => {
    fc.assert(
      fc.property(arbGateInput, arbBreaker, (generated, breaker) => {
        const input = { ...generated, breaker };
        if (breakerAllowsDispatch(breaker, input.breakerConfig, input.now).allowed) return;
        expect(GOES.has(decide(input).action)).toBe(false);
      }),
    );
  });

  test("an attempt goes only from a ready phase, and a non-PURE unknown outcome is reconciled first", () => {
    fc.assert(
      fc.property(arbGateInput, (input) => {
        const { action } = decide(input);
        const { phase, evidence } = input.operation;
        if (GOES.has(action)) {
          expect(["PLANNED", "RETRY_SCHEDULED", "RECONCILED", "UNKNOWN"]).toContain(phase);
          if (phase === "RECONCILED") expect(evidence).toBe("not_applied");
          if (phase === "UNKNOWN") expect(input.contract.effect).toBe("PURE");
        }
      }),
    );
  });

  test("without a person's approval, no attempt beyond the budget goes", () => {
    fc.assert(
      fc.property(arbGateInput, (input) => {
        const { attempt, approvedAttempt } = input.operation;
        if (RETRIES.has(decide(input).action) && approvedAttempt !== attempt + 1) {
          expect(attempt).toBeLessThan(input.contract.maxAttempts);
        }
      }),
    );
  });

  test("a contract that requires approval lets nothing go without it", () => {
    fc.assert(
      fc.property(arbGateInput, (generated) => {
        const input = { ...generated, contract: { ...generated.contract, approval: "required" as const } };
        if (GOES.has(decide(input).action)) expect(input.operation.approvedAttempt).toBe(input.operation.attempt + 1);
      }),
    );
  });

  test("IDEMPOTENT never reuses its key past the provider's retention window without evidence or approval", () => {
    const arbRetry = fc
      .tuple(
        arbGateInput,
        fc.integer({ min: 0, max: 3_000_000 }),
        fc.integer({ min: -2_000_000, max: 2_000_000 }),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.integer({ min: -1_000_000, max: 3_000_000 }), { nil: null }),
      )
      .map(([input, retention, sinceFirst, attempt, wait]): GateInput => ({
        ...input,
        breaker: null,
        contract: {
          ...input.contract,
          effect: "IDEMPOTENT",
          approval: "not_required",
          keyRetentionMs: retention,
          maxAttempts: 5,
        },
        operation: {
          ...input.operation,
          phase: "RETRY_SCHEDULED",
          attempt,
          firstDispatchedAt: input.now - sinceFirst,
          notBefore: wait === null ? null : input.now + wait,
        },
      }));
    fc.assert(
      fc.property(fc.oneof(arbGateInput, arbRetry), (input) => {
        const { operation: op, contract, now } = input;
        const retention = contract.keyRetentionMs;
        if (contract.effect !== "IDEMPOTENT" || decide(input).action !== "RETRY_SAME_KEY") return;
        if (retention === null || retention === undefined || op.firstDispatchedAt === null) return;
        if (op.approvedAttempt === op.attempt + 1) return;
        if (op.phase === "RECONCILED" && op.evidence === "not_applied") return;
        expect(Math.max(now, op.notBefore ?? now)).toBeLessThanOrEqual(op.firstDispatchedAt + retention);
      }),
      { numRuns: 300 },
    );
  });
});

describe("decideAfterFailure, for every input", () => {
  const arbFailure = fc.tuple(arbGateInput, arbClassifiedError, fc.integer()).map(([input, error, seed]) => ({
    input: {
      ...input,
      operation: {
        ...input.operation,
        phase: "DISPATCHED" as const,
        attempt: input.operation.attempt + 1,
        lastError: error,
      },
    },
    error,
    seed,
  }));

  test("moves along the phase table, with a well-formed decision", () => {
    fc.assert(
      fc.property(arbFailure, ({ input, error, seed }) => {
        const step = decideAfterFailure(input, error, seededRandom(seed));
        expect(isLegalTransition("DISPATCHED", step.phase)).toBe(true);
        wellFormed(step.decision);
        if (step.notBefore !== null) expect(step.notBefore).toBeGreaterThanOrEqual(input.now);
        expect(step.notBefore !== null).toBe(step.phase === "RETRY_SCHEDULED");
      }),
    );
  });

  test("is deterministic for a given random source", () => {
    fc.assert(
      fc.property(arbFailure, ({ input, error, seed }) => {
        expect(decideAfterFailure(input, error, seededRandom(seed))).toEqual(
          decideAfterFailure(structuredClone(input), error, seededRandom(seed)),
        );
      }),
    );
  });

  test("the phase matches the decision, and a fatal error always ends the operation", () => {
    fc.assert(
      fc.property(arbFailure, ({ input, error, seed }) => {
        const { phase, decision } = decideAfterFailure(input, error, seededRandom(seed));
        const expectedPhase: Record<DecisionAction, string> = {
          DISPATCH: "RETRY_SCHEDULED",
          RETRY: "RETRY_SCHEDULED",
          RETRY_SAME_KEY: "RETRY_SCHEDULED",
          UNAVAILABLE: "RETRY_SCHEDULED",
          RECONCILE: "UNKNOWN",
          APPROVAL: "AWAITING_APPROVAL",
          STOP: "FAILED",
          WAIT: "never",
        };
        expect(phase).toBe(expectedPhase[decision.action]);
        expect(phase === "FAILED").toBe(error.errorClass === "fatal");
      }),
    );
  });

  test("a REPLAYABLE or UNKNOWN-class attempt that failed without a definite answer goes to the unknowns queue", () => {
    fc.assert(
      fc.property(arbFailure, fc.constantFrom("REPLAYABLE", "UNKNOWN"), ({ input, error, seed }, effect) => {
        if (error.errorClass === "fatal") return;
        const step = decideAfterFailure(
          { ...input, contract: { ...input.contract, effect } },
          error,
          seededRandom(seed),
        );
        expect(step.phase).toBe("UNKNOWN");
      }),
    );
  });

  test("what it decides is what decide says of the operation it leaves behind", () => {
    fc.assert(
      fc.property(arbFailure, ({ input, error, seed }) => {
        const step = decideAfterFailure(input, error, seededRandom(seed));
        const after: GateInput = {
          ...input,
          operation: {
            ...input.operation,
            phase: step.phase,
            notBefore: step.notBefore,
            evidence: "none",
            approvedAttempt: null,
            // A request for a person comes with its own deadline; any other keeps whatever was left over.
            approvalExpiresAt: step.approvalExpiresAt ?? input.operation.approvalExpiresAt,
          },
        };
        expect(decide(after).action).toBe(step.decision.action);
        expect(step.approvalExpiresAt).toBe(
          step.phase === "AWAITING_APPROVAL" ? input.now + (input.contract.approvalTtlMs ?? 86_400_000) : null,
        );
      }),
    );
  });
});

describe("backoff, for every input", () => {
  const arbBackoff = fc
    .tuple(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 100_000_000 }))
    .map(([baseMs, extra]) => ({ baseMs, maxMs: baseMs + extra }));
  const arbAttempt = fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
  const arbRandom = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

  test("never exceeds its cap, never goes negative, and is a whole number", () => {
    fc.assert(
      fc.property(arbAttempt, arbBackoff, arbRandom, (attempt, backoff, r) => {
        const cap = backoffCap(attempt, backoff);
        const delay = backoffDelay(attempt, backoff, () => r);
        expect(cap).toBeLessThanOrEqual(backoff.maxMs);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(cap);
        expect(Number.isInteger(delay)).toBe(true);
      }),
    );
  });

  test("the cap never shrinks as attempts grow", () => {
    fc.assert(
      fc.property(arbAttempt, arbBackoff, (attempt, backoff) => {
        expect(backoffCap(attempt + 1, backoff)).toBeGreaterThanOrEqual(backoffCap(attempt, backoff));
      }),
    );
  });

  test("a retry waits at least the provider's Retry-After and at most max(maxMs, Retry-After)", () => {
    fc.assert(
      fc.property(arbAttempt, arbBackoff, arbClassifiedError, arbRandom, (attempt, backoff, error, r) => {
        const delay = retryDelay(attempt, backoff, error, () => r);
        const retryAfter = error.retryAfterMs ?? 0;
        expect(delay).toBeGreaterThanOrEqual(retryAfter);
        expect(delay).toBeLessThanOrEqual(Math.max(backoff.maxMs, retryAfter));
      }),
    );
  });
});

describe("breaker, for every sequence of events", () => {
  const arbEvent: fc.Arbitrary<BreakerEvent> = fc.oneof(
    fc.constant({ type: "success" as const }),
    fc.constant({ type: "failure" as const }),
    fc.constant({ type: "probe" as const }),
    fc.constant({ type: "release" as const }),
    fc.string({ maxLength: 10 }).map((reason) => ({ type: "force_open" as const, reason })),
    fc.string({ maxLength: 10 }).map((reason) => ({ type: "force_close" as const, reason })),
  );
  const arbSteps = fc.array(fc.tuple(arbEvent, fc.integer({ min: 0, max: 60_000 })), { maxLength: 40 });

  test("a forced state is what it reads as, and refusals always say why and for how long", () => {
    fc.assert(
      fc.property(arbBreaker, arbBreakerConfig, arbSteps, (start, config, steps) => {
        let b = start;
        let now = 1_800_000_000_000;
        for (const [event, advance] of steps) {
          now += advance;
          b = nextBreaker(b, event, config, now);
          if (b.forced !== null) expect(effectiveBreakerState(b, config, now)).toBe(b.forced);
          const verdict = breakerAllowsDispatch(b, config, now);
          if (!verdict.allowed) {
            expect(verdict.reason).not.toBe("");
            expect(verdict.retryAfterMs).toBeGreaterThanOrEqual(0);
          }
          expect(b.consecutiveFailures).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  test("a half-open breaker lets exactly one probe out", () => {
    fc.assert(
      fc.property(arbBreaker, arbBreakerConfig, fc.integer({ min: 0, max: 200_000 }), (start, config, later) => {
        const now = 1_800_000_000_000 + later;
        const first = breakerAllowsDispatch(start, config, now);
        if (!(first.allowed && first.probe)) return;
        const probing = nextBreaker(start, { type: "probe" }, config, now);
        expect(breakerAllowsDispatch(probing, config, now).allowed).toBe(false);
      }),
    );
  });

  test("without an override, the threshold-th consecutive failure while closed opens it", () => {
    fc.assert(
      fc.property(arbBreakerConfig, (config) => {
        let b = CLOSED_BREAKER;
        for (let i = 0; i < config.failureThreshold; i += 1) {
          expect(b.state).toBe("closed");
          b = nextBreaker(b, { type: "failure" }, config, 1000);
        }
        expect(b.state).toBe("open");
        expect(b.openedAt).toBe(1000);
      }),
    );
  });
});

describe("error classification, for any report", () => {
  test("never throws and always gives a known class; a Retry-After is never negative", () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            kind: fc.oneof(fc.string(), fc.constantFrom("ETIMEDOUT", "econnreset", "validation", "rate_limited")),
            httpStatus: fc.oneof(fc.integer({ min: -10, max: 700 }), fc.double()),
            message: fc.string(),
            retryAfterMs: fc.double(),
          },
          { requiredKeys: [] },
        ),
        (report) => {
          const classified = classifyError(report);
          expect(["transient", "fatal", "unclassified"]).toContain(classified.errorClass);
          if (classified.retryAfterMs !== undefined) expect(classified.retryAfterMs).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });

  test("Retry-After parsing is bounded by 0 and 24 h for any header", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.nat().map(String)),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (header, now) => {
          const ms = parseRetryAfter(header, now);
          if (ms !== undefined) {
            expect(ms).toBeGreaterThanOrEqual(0);
            expect(ms).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
          }
        },
      ),
    );
  });
});
