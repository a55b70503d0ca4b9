// The gate table: one row per effect class and situation, each with the action, the wait and the words of the reason.
import { describe, expect, test } from "vitest";
import { decide } from "./decide";
import { NOW, TIMEOUT, breakers, gateInput } from "./gate-arbitraries.test-helper";
import {
  EFFECT_CLASSES,
  type Breaker,
  type ClassifiedError,
  type DecisionAction,
  type EffectClass,
  type GateContract,
  type GateOperation,
} from "./types";

const HOUR = 60 * 60 * 1000;
const UNPROCESSABLE: ClassifiedError = { kind: "unprocessable", errorClass: "fatal", httpStatus: 422 };
const UNCLASSIFIED: ClassifiedError = { kind: "unclassified", errorClass: "unclassified" };

type PerClass<T> = T | Record<EffectClass, T>;

interface Situation {
  name: string;
  op: Partial<GateOperation>;
  contract?: Partial<GateContract>;
  breaker?: Breaker;
  action: PerClass<DecisionAction>;
  /** Words the reason must contain; per class where the cause differs. */
  reason?: PerClass<RegExp | null>;
  /** Expected wait; absent means the decision must not carry one. */
  retryAfterMs?: PerClass<number | undefined>;
}

function perClass<T>(value: PerClass<T>, effect: EffectClass): T {
  if (typeof value === "object" && value !== null && !(value instanceof RegExp) && effect in value) {
    return (value as Record<EffectClass, T>)[effect];
  }
  return value as T;
}

/** The usual answer for a retry after a transient failure with budget left: the class table of the design. */
const CLASS_RULE: Record<EffectClass, DecisionAction> = {
  PURE: "RETRY",
  IDEMPOTENT: "RETRY_SAME_KEY",
  REPLAYABLE: "RECONCILE",
  UNKNOWN: "RECONCILE",
  NON_RETRYABLE: "APPROVAL",
};
const CLASS_REASON: Record<EffectClass, RegExp> = {
  PURE: /attempt 2 of 3 of a PURE tool may be retried now: attempt 1 failed with transient error timeout/i,
  IDEMPOTENT: /attempt 2 of 3 of an IDEMPOTENT tool may be retried with the same key now/i,
  REPLAYABLE: /repeat only after checking the durable record/,
  UNKNOWN: /may have happened without proof/,
  NON_RETRYABLE: /unacceptable new effect, so a person must approve the retry/,
};
const APPROVED = /approved by a person, and exactly one attempt is granted/;
const retry = { phase: "RETRY_SCHEDULED", attempt: 1, lastError: TIMEOUT } satisfies Partial<GateOperation>;
const approvedRetry: Record<EffectClass, DecisionAction> = {
  PURE: "RETRY",
  IDEMPOTENT: "RETRY_SAME_KEY",
  REPLAYABLE: "RETRY_SAME_KEY",
  UNKNOWN: "RETRY_SAME_KEY",
  NON_RETRYABLE: "RETRY_SAME_KEY",
};
const every = <T>(value: T): Record<EffectClass, T> =>
  Object.fromEntries(EFFECT_CLASSES.map((effect) => [effect, value])) as Record<EffectClass, T>;

const SITUATIONS: Situation[] = [
  // Rules 1-4: finished operations.
  {
    name: "confirmed",
    op: { phase: "CONFIRMED", attempt: 1 },
    action: "STOP",
    reason: /attempt 1 of 3 .* was confirmed by the provider, and a confirmed effect is never repeated/i,
  },
  {
    name: "rejected",
    op: { phase: "REJECTED", attempt: 1, rejectionReason: "duplicate order" },
    action: "STOP",
    reason: /rejected \("duplicate order"\) after 1 attempt,/,
  },
  {
    name: "rejected without a recorded reason",
    op: { phase: "REJECTED", attempt: 0 },
    action: "STOP",
    reason: /no reason recorded/,
  },
  {
    name: "expired: nobody decided on the approval request in time",
    op: { phase: "EXPIRED", attempt: 0, approvalExpiresAt: NOW - 1 },
    action: "STOP",
    reason:
      /^The approval request for attempt 1 of 3 of .* expired after 24 h without a decision; a person can replay the operation\.$/,
  },
  {
    name: "expired, under a contract with its own approval TTL",
    op: { phase: "EXPIRED", attempt: 2, lastError: TIMEOUT },
    contract: { approvalTtlMs: 90 * 60 * 1000 },
    action: "STOP",
    reason: /^The approval request for attempt 3 of 3 .* expired after 90 min without a decision;/,
  },
  {
    name: "failed with a fatal error",
    op: { phase: "FAILED", attempt: 1, lastError: UNPROCESSABLE },
    action: "STOP",
    reason: /failed with fatal error 422 unprocessable, and a fatal error is never retried/,
  },
  {
    name: "failed with the budget spent",
    op: { phase: "FAILED", attempt: 3, lastError: TIMEOUT },
    action: "STOP",
    reason: /retry budget of 3 attempts is spent/,
  },
  {
    name: "reconciled as applied",
    op: { phase: "RECONCILED", attempt: 1, evidence: "applied" },
    action: "STOP",
    reason: /^Reconciled: the effect of attempt 1 of 3 .* happened, so it is never repeated\.$/,
  },
  // Reconciled as not applied: the class decides.
  {
    name: "reconciled as not applied, budget left",
    op: { phase: "RECONCILED", attempt: 1, evidence: "not_applied" },
    action: {
      PURE: "RETRY",
      IDEMPOTENT: "RETRY_SAME_KEY",
      REPLAYABLE: "RETRY_SAME_KEY",
      UNKNOWN: "APPROVAL",
      NON_RETRYABLE: "APPROVAL",
    },
    reason: {
      PURE: /reconciliation proved attempt 1 did not take effect/,
      IDEMPOTENT: /same key now: reconciliation proved attempt 1 did not take effect/,
      REPLAYABLE: /same key now: reconciliation proved attempt 1 did not take effect/,
      UNKNOWN: /reconciled as not applied, but a retry of an UNKNOWN-class tool still needs a person/,
      NON_RETRYABLE: /unacceptable new effect/,
    },
  },
  {
    name: "reconciled as not applied, budget spent",
    op: { phase: "RECONCILED", attempt: 3, evidence: "not_applied" },
    action: "APPROVAL",
    reason: {
      PURE: /retry budget of 3 attempts is spent/,
      IDEMPOTENT: /retry budget of 3 attempts is spent/,
      REPLAYABLE: /retry budget of 3 attempts is spent/,
      UNKNOWN: /still needs a person/,
      NON_RETRYABLE: /unacceptable new effect/,
    },
  },
  {
    name: "reconciled as not applied, with a person's approval given in the same step",
    op: { phase: "RECONCILED", attempt: 1, evidence: "not_applied", approvedAttempt: 2 },
    action: approvedRetry,
    reason: APPROVED,
  },
  {
    name: "reconciled without evidence",
    op: { phase: "RECONCILED", attempt: 1, evidence: "none" },
    action: "RECONCILE",
    reason: /reconciled without evidence either way/,
  },
  // Rule 5: in flight.
  {
    name: "dispatched",
    op: { phase: "DISPATCHED", attempt: 2 },
    action: "WAIT",
    reason: /^Attempt 2 of 3 .* is in flight; waiting for its outcome\.$/,
  },
  {
    name: "authorized",
    op: { phase: "AUTHORIZED", attempt: 1 },
    action: "WAIT",
    reason: /^Attempt 2 of 3 .* is authorized and about to be dispatched; waiting for its outcome\.$/,
  },
  // Rule 6: waiting for a person, with the reason that sent it there.
  {
    name: "awaiting approval because the contract requires it",
    op: { phase: "AWAITING_APPROVAL", attempt: 0 },
    contract: { approval: "required" },
    action: "APPROVAL",
    reason: /requires a person to approve every attempt/,
  },
  {
    name: "awaiting approval of a retry",
    op: { phase: "AWAITING_APPROVAL", attempt: 1, lastError: TIMEOUT },
    action: "APPROVAL",
    reason: {
      PURE: /waits for a person to approve it/,
      IDEMPOTENT: /waits for a person to approve it/,
      REPLAYABLE: /waits for a person to approve it/,
      UNKNOWN: /waits for a person to approve it/,
      NON_RETRYABLE: /unacceptable new effect, so a person must approve the retry/,
    },
  },
  {
    name: "awaiting approval with the budget spent",
    op: { phase: "AWAITING_APPROVAL", attempt: 3, evidence: "not_applied" },
    action: "APPROVAL",
    reason: {
      PURE: /retry budget of 3 attempts is spent/,
      IDEMPOTENT: /retry budget of 3 attempts is spent/,
      REPLAYABLE: /retry budget of 3 attempts is spent/,
      UNKNOWN: /reconciled as not applied, but a retry of an UNKNOWN-class tool still needs a person/,
      NON_RETRYABLE: /unacceptable new effect/,
    },
  },
  {
    name: "awaiting approval after an unclassified error",
    op: { phase: "AWAITING_APPROVAL", attempt: 1, lastError: UNCLASSIFIED },
    action: "APPROVAL",
    reason: {
      PURE: /an unclassified error is not retried without a person/,
      IDEMPOTENT: /an unclassified error is not retried without a person/,
      REPLAYABLE: /an unclassified error is not retried without a person/,
      UNKNOWN: /an unclassified error is not retried without a person/,
      NON_RETRYABLE: /unacceptable new effect/,
    },
  },
  // Rule 6a: a request nobody decided on in time is never approved by default, even before the sweep moves it.
  {
    name: "awaiting approval past its deadline (the sweep has not come by yet)",
    op: { phase: "AWAITING_APPROVAL", attempt: 1, lastError: TIMEOUT, approvalExpiresAt: NOW - 1 },
    contract: { approvalTtlMs: 2 * HOUR },
    action: "STOP",
    reason:
      /^The approval request for attempt 2 of 3 of .* expired after 2 h without a decision; a person can replay the operation\.$/,
  },
  {
    name: "awaiting approval at its deadline (it expires only after waiting longer)",
    op: { phase: "AWAITING_APPROVAL", attempt: 1, lastError: TIMEOUT, approvalExpiresAt: NOW },
    action: "APPROVAL",
  },
  {
    name: "a deadline left over from an earlier request means nothing outside AWAITING_APPROVAL",
    op: { ...retry, approvalExpiresAt: NOW - HOUR },
    action: CLASS_RULE,
    reason: CLASS_REASON,
  },
  // Rule 7: unknown outcome.
  {
    name: "unknown outcome, budget left",
    op: { phase: "UNKNOWN", attempt: 1 },
    action: { ...every<DecisionAction>("RECONCILE"), PURE: "RETRY" },
    reason: {
      ...every(/the outcome of attempt 1 of 3 .* is unknown; look the effect up by its key before anything else/i),
      PURE: /may be retried now: the outcome of attempt 1 is unknown, and a PURE tool has no external effect/,
    },
  },
  {
    name: "unknown outcome, budget spent",
    op: { phase: "UNKNOWN", attempt: 3 },
    action: { ...every<DecisionAction>("RECONCILE"), PURE: "APPROVAL" },
    reason: { ...every(/is unknown; look the effect up/), PURE: /retry budget of 3 attempts is spent/ },
  },
  // Rule 8a-b: first attempts.
  {
    name: "first attempt",
    op: { phase: "PLANNED", attempt: 0 },
    action: "DISPATCH",
    reason: /^Attempt 1 of 3 .* may be dispatched now: the first attempt needs no retry decision\.$/,
  },
  {
    name: "first attempt, approval required",
    op: { phase: "PLANNED", attempt: 0 },
    contract: { approval: "required" },
    action: "APPROVAL",
    reason: /^Attempt 1 of 3 .* needs a person: the contract requires a person to approve every attempt\.$/,
  },
  {
    name: "first attempt, approval required and given",
    op: { phase: "PLANNED", attempt: 0, approvedAttempt: 1 },
    contract: { approval: "required" },
    action: "DISPATCH",
    reason: /a person approved the first attempt/,
  },
  {
    name: "first attempt, approval required and given for another attempt",
    op: { phase: "PLANNED", attempt: 0, approvedAttempt: 2 },
    contract: { approval: "required" },
    action: "APPROVAL",
  },
  // Rule 8e: retries by class.
  { name: "retry, budget left", op: retry, action: CLASS_RULE, reason: CLASS_REASON },
  {
    name: "retry, budget spent",
    op: { ...retry, attempt: 3 },
    action: { ...CLASS_RULE, PURE: "APPROVAL", IDEMPOTENT: "APPROVAL" },
    reason: {
      ...CLASS_REASON,
      PURE: /needs a person: the retry budget of 3 attempts is spent and attempt 3 failed/,
      IDEMPOTENT: /needs a person: the retry budget of 3 attempts is spent and attempt 3 failed/,
    },
  },
  {
    name: "retry, after a stale 'not applied' (the store did not clear it on dispatch)",
    op: { ...retry, evidence: "not_applied" },
    action: CLASS_RULE,
  },
  // Rule 8d: approvals grant exactly one attempt.
  { name: "approved retry", op: { ...retry, approvedAttempt: 2 }, action: approvedRetry, reason: APPROVED },
  {
    name: "approved retry beyond the budget",
    op: { ...retry, attempt: 3, approvedAttempt: 4 },
    action: approvedRetry,
    reason: /attempt 4 \(beyond the budget of 3\) .* approved by a person/i,
  },
  {
    name: "approval already spent on the previous attempt",
    op: { ...retry, attempt: 2, approvedAttempt: 2 },
    action: CLASS_RULE,
  },
  {
    name: "retry, approval required, not approved",
    op: retry,
    contract: { approval: "required" },
    action: "APPROVAL",
    reason: /requires a person to approve every attempt/,
  },
  {
    name: "retry, approval required and given",
    op: { ...retry, approvedAttempt: 2 },
    contract: { approval: "required" },
    action: approvedRetry,
    reason: APPROVED,
  },
  // Rule 8c: the breaker.
  {
    name: "breaker open, retry",
    op: retry,
    breaker: breakers.open,
    action: "UNAVAILABLE",
    reason: new RegExp(
      String.raw`attempt 2 of 3 .* is held because the dependency's circuit breaker is open since \S+ after 3 consecutive ` +
        String.raw`failures and lets a probe through at \S+ \(20000 ms of its 30000 ms cooldown remain\); ask again in 20000 ms`,
      "i",
    ),
    retryAfterMs: 20_000,
  },
  {
    name: "breaker open, first attempt",
    op: { phase: "PLANNED", attempt: 0 },
    breaker: breakers.open,
    action: "UNAVAILABLE",
    retryAfterMs: 20_000,
  },
  {
    name: "breaker open, approved retry",
    op: { ...retry, approvedAttempt: 2 },
    breaker: breakers.open,
    action: "UNAVAILABLE",
    retryAfterMs: 20_000,
  },
  {
    name: "breaker open, budget spent (the breaker answers before the budget)",
    op: { ...retry, attempt: 3 },
    breaker: breakers.open,
    action: "UNAVAILABLE",
    retryAfterMs: 20_000,
  },
  {
    name: "breaker open, approval required (a person is asked first)",
    op: retry,
    contract: { approval: "required" },
    breaker: breakers.open,
    action: "APPROVAL",
  },
  {
    name: "breaker half-open, no probe out",
    op: retry,
    breaker: breakers.halfOpen,
    action: CLASS_RULE,
    reason: {
      ...CLASS_REASON,
      PURE: /it goes as the half-open breaker's single probe\.$/,
      IDEMPOTENT: /it goes as the half-open breaker's single probe\.$/,
    },
  },
  {
    name: "breaker half-open, probe already out",
    op: retry,
    breaker: breakers.probing,
    action: "UNAVAILABLE",
    reason: /half-open and its single probe attempt is already in flight/,
    retryAfterMs: 30_000,
  },
  {
    name: "breaker forced open",
    op: retry,
    breaker: breakers.forcedOpen,
    action: "UNAVAILABLE",
    reason: /forced open by an operator \("provider maintenance"\)/,
    retryAfterMs: 30_000,
  },
  { name: "breaker forced closed", op: retry, breaker: breakers.forcedClosed, action: CLASS_RULE },
  // Rule 8e: the provider's key retention window.
  {
    name: "key retention window passed",
    op: { ...retry, firstDispatchedAt: NOW - 25 * HOUR },
    contract: { keyRetentionMs: 24 * HOUR },
    action: { ...CLASS_RULE, IDEMPOTENT: "RECONCILE" },
    reason: {
      ...CLASS_REASON,
      IDEMPOTENT: new RegExp(
        String.raw`must not reuse its key: the provider's key retention window \(24 h\) has passed since the first dispatch, ` +
          "so a retry with the same key is no longer safe",
      ),
    },
  },
  {
    name: "key retention window passed, even though a person approved the retry",
    op: { ...retry, firstDispatchedAt: NOW - 25 * HOUR, approvedAttempt: 2 },
    contract: { keyRetentionMs: 24 * HOUR },
    action: {
      PURE: "RETRY",
      IDEMPOTENT: "RECONCILE",
      REPLAYABLE: "RETRY_SAME_KEY",
      UNKNOWN: "RETRY_SAME_KEY",
      NON_RETRYABLE: "RETRY_SAME_KEY",
    },
  },
  {
    name: "key retention window not passed",
    op: { ...retry, firstDispatchedAt: NOW - 23 * HOUR },
    contract: { keyRetentionMs: 24 * HOUR },
    action: CLASS_RULE,
    reason: CLASS_REASON,
  },
  {
    name: "key retention window passed, but reconciled as not applied",
    op: { phase: "RECONCILED", attempt: 1, evidence: "not_applied", firstDispatchedAt: NOW - 25 * HOUR },
    contract: { keyRetentionMs: 24 * HOUR },
    action: {
      PURE: "RETRY",
      IDEMPOTENT: "RETRY_SAME_KEY",
      REPLAYABLE: "RETRY_SAME_KEY",
      UNKNOWN: "APPROVAL",
      NON_RETRYABLE: "APPROVAL",
    },
  },
  {
    name: "key retention window still open now, but passed by the time the backoff ends",
    op: { ...retry, firstDispatchedAt: NOW - 23 * HOUR, notBefore: NOW + 2 * HOUR },
    contract: { keyRetentionMs: 24 * HOUR },
    action: { ...CLASS_RULE, IDEMPOTENT: "RECONCILE" },
    retryAfterMs: { ...every<number | undefined>(undefined), PURE: 2 * HOUR },
  },
  // Rule 8f: a backoff still running keeps the action and says when.
  {
    name: "backoff still running",
    op: { ...retry, notBefore: NOW + 1500 },
    action: CLASS_RULE,
    reason: {
      ...CLASS_REASON,
      PURE: /attempt 2 of 3 of a PURE tool may be retried in 1500 ms: attempt 1 failed with transient error timeout/i,
      IDEMPOTENT: /may be retried with the same key in 1500 ms/,
    },
    retryAfterMs: { ...every<number | undefined>(undefined), PURE: 1500, IDEMPOTENT: 1500 },
  },
  {
    name: "backoff still running, approved retry",
    op: { ...retry, notBefore: NOW + 1500, approvedAttempt: 2 },
    action: approvedRetry,
    retryAfterMs: 1500,
  },
  {
    name: "first attempt not before a later time",
    op: { phase: "PLANNED", attempt: 0, notBefore: NOW + 1500 },
    action: "DISPATCH",
    reason: /may be dispatched in 1500 ms/,
    retryAfterMs: 1500,
  },
  { name: "backoff over", op: { ...retry, notBefore: NOW - 1 }, action: CLASS_RULE, reason: CLASS_REASON },
  { name: "backoff ends exactly now", op: { ...retry, notBefore: NOW }, action: CLASS_RULE },
];

const ROWS = SITUATIONS.flatMap((situation) =>
  EFFECT_CLASSES.map((effect) => ({
    situation: situation.name,
    effect,
    input: gateInput(effect, situation.op, situation.contract, situation.breaker ?? null),
    action: perClass(situation.action, effect),
    reason: situation.reason === undefined ? null : perClass(situation.reason, effect),
    retryAfterMs: situation.retryAfterMs === undefined ? undefined : perClass(situation.retryAfterMs, effect),
  })),
);

describe("decide", () => {
  test.each(ROWS)("$situation, $effect -> $action", ({ effect, input, action, reason, retryAfterMs }) => {
    const decision = decide(input);
    expect(decision.action).toBe(action);
    expect(decision.retryAfterMs).toBe(retryAfterMs);
    if (reason !== null) expect(decision.reason).toMatch(reason);
    // One sentence that names the class and the attempt.
    expect(decision.reason).toMatch(/^[A-Z][^\n]*\.$/);
    expect(decision.reason).toContain(effect);
    expect(decision.reason).toMatch(/attempt/i);
  });

  test("the table covers every effect class in every situation", () => {
    expect(ROWS).toHaveLength(SITUATIONS.length * EFFECT_CLASSES.length);
  });

  test("does not change its input", () => {
    const input = gateInput("IDEMPOTENT", { ...retry, notBefore: NOW + 5 }, {}, breakers.halfOpen);
    const copy = structuredClone(input);
    decide(input);
    expect(input).toEqual(copy);
  });
});

describe("an UNAVAILABLE decision", () => {
  test("names the dependency, since when, when it tries again, and what to do instead", () => {
    const breaker = { ...breakers.open, name: "payments-api" };
    const decision = decide(gateInput("IDEMPOTENT", { phase: "RETRY_SCHEDULED", attempt: 1 }, {}, breaker));
    expect(decision).toMatchObject({
      action: "UNAVAILABLE",
      retryAfterMs: 20_000,
      unavailable: {
        dependency: "payments-api",
        openSince: new Date(NOW - 10_000).toISOString(),
        nextTryAt: new Date(NOW + 20_000).toISOString(),
        forced: false,
      },
    });
    expect(decision.reason).toContain("the circuit breaker of payments-api is open since");
    expect(decision.reason).toContain("use another way that does not need payments-api, or tell the user");
  });
});
