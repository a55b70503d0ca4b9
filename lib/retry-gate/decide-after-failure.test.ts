// Tests for the step after a failed attempt: which phase it moves to, when it may go again, and why.
import { describe, expect, test } from "vitest";
import { decideAfterFailure } from "./decide";
import { NOW, TIMEOUT, breakers, gateInput } from "./gate-arbitraries.test-helper";
import { isLegalTransition } from "./phases";
import {
  EFFECT_CLASSES,
  type Breaker,
  type ClassifiedError,
  type DecisionAction,
  type EffectClass,
  type GateContract,
  type GateOperation,
  type Phase,
} from "./types";

const HOUR = 60 * 60 * 1000;
const UNPROCESSABLE: ClassifiedError = { kind: "unprocessable", errorClass: "fatal", httpStatus: 422 };
const UNCLASSIFIED: ClassifiedError = { kind: "unclassified", errorClass: "unclassified", message: "??" };
const RATE_LIMITED: ClassifiedError = {
  kind: "rate_limited",
  errorClass: "transient",
  httpStatus: 429,
  retryAfterMs: 40_000,
};

/** random() = 0.5 after attempt 1 with baseMs 100: floor(0.5 * 101) = 50 ms. */
const HALF = () => 0.5;
const DELAY = 50;

type Outcome = [Phase, DecisionAction, number | null];
const scheduled = (action: DecisionAction, wait = DELAY): Outcome => ["RETRY_SCHEDULED", action, NOW + wait];
const unknown: Outcome = ["UNKNOWN", "RECONCILE", null];
const approval: Outcome = ["AWAITING_APPROVAL", "APPROVAL", null];
const failed: Outcome = ["FAILED", "STOP", null];

interface Situation {
  name: string;
  error: ClassifiedError;
  op?: Partial<GateOperation>;
  contract?: Partial<GateContract>;
  breaker?: Breaker;
  expected: Record<EffectClass, Outcome>;
  reason?: Partial<Record<EffectClass, RegExp>>;
}

const every = (outcome: Outcome): Record<EffectClass, Outcome> =>
  Object.fromEntries(EFFECT_CLASSES.map((effect) => [effect, outcome])) as Record<EffectClass, Outcome>;

const SITUATIONS: Situation[] = [
  {
    name: "fatal error",
    error: UNPROCESSABLE,
    expected: every(failed),
    reason: Object.fromEntries(
      EFFECT_CLASSES.map((e) => [
        e,
        /^Attempt 1 of 3 of .* failed with fatal error 422 unprocessable: never retried\.$/,
      ]),
    ),
  },
  {
    name: "fatal error with budget left and an approval in hand",
    error: { kind: "validation", errorClass: "fatal" },
    op: { approvedAttempt: 2 },
    expected: every(failed),
  },
  {
    name: "unclassified error",
    error: UNCLASSIFIED,
    expected: {
      PURE: scheduled("RETRY"),
      IDEMPOTENT: approval,
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
    reason: {
      PURE: /may be retried in 50 ms: attempt 1 failed with an unclassified error/,
      IDEMPOTENT: /an unclassified error is not retried without a person/,
      REPLAYABLE: /its effect is uncertain; look the effect up by its key/,
      UNKNOWN: /its effect is uncertain; look the effect up by its key/,
      NON_RETRYABLE: /an unclassified error is not retried without a person/,
    },
  },
  {
    name: "transient error, budget left",
    error: TIMEOUT,
    expected: {
      PURE: scheduled("RETRY"),
      IDEMPOTENT: scheduled("RETRY_SAME_KEY"),
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
    reason: {
      PURE: /^Attempt 2 of 3 of a PURE tool may be retried in 50 ms: attempt 1 failed with transient error timeout/,
      IDEMPOTENT: /^Attempt 2 of 3 of an IDEMPOTENT tool may be retried with the same key in 50 ms/,
      REPLAYABLE: /repeat only after checking the durable record/,
      UNKNOWN: /may have happened without proof/,
      NON_RETRYABLE: /a person must approve the retry/,
    },
  },
  {
    name: "transient error, budget spent",
    error: TIMEOUT,
    op: { attempt: 3 },
    expected: { PURE: approval, IDEMPOTENT: approval, REPLAYABLE: unknown, UNKNOWN: unknown, NON_RETRYABLE: approval },
    reason: {
      PURE: /retry budget of 3 attempts is spent/,
      IDEMPOTENT: /retry budget of 3 attempts is spent/,
    },
  },
  {
    name: "transient error, the approved attempt was just spent",
    error: TIMEOUT,
    op: { attempt: 4, approvedAttempt: 4 },
    expected: { PURE: approval, IDEMPOTENT: approval, REPLAYABLE: unknown, UNKNOWN: unknown, NON_RETRYABLE: approval },
  },
  {
    name: "transient error, NON_RETRYABLE approval spent with budget left",
    error: TIMEOUT,
    op: { attempt: 2, approvedAttempt: 2 },
    expected: {
      PURE: scheduled("RETRY", 100),
      IDEMPOTENT: scheduled("RETRY_SAME_KEY", 100),
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
  },
  {
    name: "transient error after a reconciliation said 'not applied' about an earlier attempt",
    error: TIMEOUT,
    op: { evidence: "not_applied" },
    expected: {
      PURE: scheduled("RETRY"),
      IDEMPOTENT: scheduled("RETRY_SAME_KEY"),
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
  },
  {
    name: "transient error, key retention window passed",
    error: TIMEOUT,
    op: { firstDispatchedAt: NOW - 25 * HOUR },
    contract: { keyRetentionMs: 24 * HOUR },
    expected: {
      PURE: scheduled("RETRY"),
      IDEMPOTENT: unknown,
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
    reason: { IDEMPOTENT: /key retention window \(24 h\) has passed/ },
  },
  {
    name: "transient error, key retention window passes during the backoff",
    error: TIMEOUT,
    op: { firstDispatchedAt: NOW - 24 * HOUR + 10 },
    contract: { keyRetentionMs: 24 * HOUR },
    expected: {
      PURE: scheduled("RETRY"),
      IDEMPOTENT: unknown,
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
  },
  {
    name: "transient error, contract requires approval",
    error: TIMEOUT,
    contract: { approval: "required" },
    expected: { PURE: approval, IDEMPOTENT: approval, REPLAYABLE: unknown, UNKNOWN: unknown, NON_RETRYABLE: approval },
    reason: {
      PURE: /requires a person to approve every attempt/,
      IDEMPOTENT: /requires a person to approve every attempt/,
      REPLAYABLE: /repeat only after checking the durable record/,
      UNKNOWN: /may have happened without proof/,
    },
  },
  {
    name: "transient error, breaker open",
    error: TIMEOUT,
    breaker: breakers.open,
    expected: {
      PURE: scheduled("UNAVAILABLE", 20_000),
      IDEMPOTENT: scheduled("UNAVAILABLE", 20_000),
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
    reason: {
      PURE: /held because the dependency's circuit breaker is open .* ask again in 20000 ms\. Meanwhile, do not retry it/,
      IDEMPOTENT: /held because the dependency's circuit breaker is open/,
    },
  },
  {
    name: "rate limited with a Retry-After longer than the breaker's cooldown",
    error: RATE_LIMITED,
    breaker: breakers.open,
    expected: {
      PURE: scheduled("UNAVAILABLE", 40_000),
      IDEMPOTENT: scheduled("UNAVAILABLE", 40_000),
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
    reason: { PURE: /ask again in 40000 ms, when the backoff and the provider's Retry-After are over too/ },
  },
  {
    name: "rate limited with a Retry-After",
    error: RATE_LIMITED,
    expected: {
      PURE: scheduled("RETRY", 40_000),
      IDEMPOTENT: scheduled("RETRY_SAME_KEY", 40_000),
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
    reason: { PURE: /in 40000 ms: attempt 1 failed with transient error 429 rate_limited/ },
  },
  {
    name: "transient error, breaker forced open",
    error: TIMEOUT,
    breaker: breakers.forcedOpen,
    expected: {
      PURE: scheduled("UNAVAILABLE", 30_000),
      IDEMPOTENT: scheduled("UNAVAILABLE", 30_000),
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
    reason: { PURE: /forced open by an operator \("provider maintenance"\)/ },
  },
  {
    name: "transient error, breaker half-open with no probe out",
    error: TIMEOUT,
    breaker: breakers.halfOpen,
    expected: {
      PURE: scheduled("RETRY"),
      IDEMPOTENT: scheduled("RETRY_SAME_KEY"),
      REPLAYABLE: unknown,
      UNKNOWN: unknown,
      NON_RETRYABLE: approval,
    },
  },
];

const ROWS = SITUATIONS.flatMap((s) =>
  EFFECT_CLASSES.map((effect) => {
    const [phase, action, notBefore] = s.expected[effect];
    return {
      situation: s.name,
      effect,
      error: s.error,
      input: gateInput(
        effect,
        { phase: "DISPATCHED", attempt: 1, lastError: s.error, ...s.op },
        s.contract,
        s.breaker ?? null,
      ),
      phase,
      action,
      notBefore,
      reason: s.reason?.[effect] ?? null,
    };
  }),
);

describe("decideAfterFailure", () => {
  test.each(ROWS)(
    "$situation, $effect -> $phase / $action",
    ({ effect, error, input, phase, action, notBefore, reason }) => {
      const step = decideAfterFailure(input, error, HALF);
      expect(step.phase).toBe(phase);
      expect(step.decision.action).toBe(action);
      expect(step.notBefore).toBe(notBefore);
      // A step that asks a person carries the request's deadline (the contract's default TTL here), no other does.
      expect(step.approvalExpiresAt).toBe(phase === "AWAITING_APPROVAL" ? NOW + 24 * 60 * 60 * 1000 : null);
      const wait = notBefore === null ? undefined : notBefore - NOW;
      expect(step.decision.retryAfterMs).toBe(wait === 0 ? undefined : wait);
      expect(isLegalTransition("DISPATCHED", step.phase)).toBe(true);
      if (reason !== null) expect(step.decision.reason).toMatch(reason);
      expect(step.decision.reason).toMatch(/^[A-Z][^\n]*\.$/);
      expect(step.decision.reason).toContain(effect);
      expect(step.decision.reason).toMatch(/attempt \d/i);
    },
  );

  test("a retry that may go at once carries no wait and says 'now'", () => {
    const step = decideAfterFailure(gateInput("PURE", { phase: "DISPATCHED", attempt: 1 }), TIMEOUT, () => 0);
    expect(step).toMatchObject({ phase: "RETRY_SCHEDULED", notBefore: NOW, decision: { action: "RETRY" } });
    expect(step.decision).not.toHaveProperty("retryAfterMs");
    expect(step.decision.reason).toMatch(/may be retried now/);
  });

  test("the random source is drawn once, and only when a retry is possible", () => {
    let calls = 0;
    const counting = () => {
      calls += 1;
      return 0.5;
    };
    decideAfterFailure(gateInput("NON_RETRYABLE", { phase: "DISPATCHED", attempt: 1 }), TIMEOUT, counting);
    decideAfterFailure(gateInput("REPLAYABLE", { phase: "DISPATCHED", attempt: 1 }), TIMEOUT, counting);
    decideAfterFailure(gateInput("PURE", { phase: "DISPATCHED", attempt: 1 }), UNPROCESSABLE, counting);
    expect(calls).toBe(0);
    decideAfterFailure(gateInput("IDEMPOTENT", { phase: "DISPATCHED", attempt: 1 }), TIMEOUT, counting);
    expect(calls).toBe(1);
  });

  test("the backoff grows with the attempt that failed", () => {
    const top = () => 0.999_999;
    const waits = [1, 2, 3, 4, 5].map(
      (attempt) =>
        decideAfterFailure(gateInput("PURE", { phase: "DISPATCHED", attempt }, { maxAttempts: 10 }), TIMEOUT, top)
          .notBefore,
    );
    expect(waits).toEqual([100, 200, 400, 800, 1600].map((ms) => NOW + ms));
  });

  test("does not change its input", () => {
    const input = gateInput("IDEMPOTENT", { phase: "DISPATCHED", attempt: 1 }, {}, breakers.open);
    const copy = structuredClone(input);
    decideAfterFailure(input, TIMEOUT, HALF);
    expect(input).toEqual(copy);
  });
});
