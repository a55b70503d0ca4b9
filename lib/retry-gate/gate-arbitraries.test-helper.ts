// fast-check arbitraries and fixed fixtures for the retry gate's tests; imported by tests only.
import fc from "fast-check";
import { APPROVAL_TTL_MS } from "./approval-expiry";
import { CLOSED_BREAKER } from "./breaker";
import { errorClassOf } from "./classify-error";
import {
  EFFECT_CLASSES,
  EFFECT_EVIDENCE,
  ERROR_KINDS,
  PHASES,
  type Breaker,
  type BreakerConfig,
  type ClassifiedError,
  type EffectClass,
  type GateContract,
  type GateInput,
  type GateOperation,
} from "./types";

/** A fixed clock far from 0, so "time minus something" never goes negative by accident. */
export const NOW = 1_800_000_000_000;

export const BREAKER_CONFIG: BreakerConfig = { failureThreshold: 3, cooldownMs: 30_000 };

export function contractFor(effect: EffectClass, overrides: Partial<GateContract> = {}): GateContract {
  return {
    effect,
    approval: "not_required",
    maxAttempts: 3,
    backoff: { baseMs: 100, maxMs: 10_000 },
    keyRetentionMs: null,
    approvalTtlMs: null,
    ...overrides,
  };
}

export function operation(overrides: Partial<GateOperation> = {}): GateOperation {
  return {
    phase: "PLANNED",
    attempt: 0,
    evidence: "none",
    approvedAttempt: null,
    firstDispatchedAt: null,
    notBefore: null,
    lastError: null,
    rejectionReason: null,
    approvalExpiresAt: null,
    ...overrides,
  };
}

export function gateInput(
  effect: EffectClass,
  op: Partial<GateOperation> = {},
  contract: Partial<GateContract> = {},
  breaker: Breaker | null = null,
): GateInput {
  return {
    operation: operation(op),
    contract: contractFor(effect, contract),
    breaker,
    breakerConfig: BREAKER_CONFIG,
    now: NOW,
  };
}

export const TIMEOUT: ClassifiedError = { kind: "timeout", errorClass: "transient" };

export const breakers = {
  open: { ...CLOSED_BREAKER, state: "open", consecutiveFailures: 3, openedAt: NOW - 10_000 },
  halfOpen: { ...CLOSED_BREAKER, state: "open", consecutiveFailures: 3, openedAt: NOW - 60_000 },
  probing: {
    ...CLOSED_BREAKER,
    state: "half_open",
    consecutiveFailures: 3,
    openedAt: NOW - 60_000,
    probeInFlight: true,
  },
  forcedOpen: { ...CLOSED_BREAKER, state: "open", openedAt: NOW, forced: "open", forcedReason: "provider maintenance" },
  forcedClosed: { ...CLOSED_BREAKER, forced: "closed", forcedReason: "known good" },
} satisfies Record<string, Breaker>;

// Times spread around a clock window so that "before", "at" and "after" all come up.
const arbTime = fc.integer({ min: NOW - 2_000_000, max: NOW + 2_000_000 });

export const arbEffect = fc.constantFrom(...EFFECT_CLASSES);

export const arbClassifiedError: fc.Arbitrary<ClassifiedError> = fc
  .record(
    {
      kind: fc.constantFrom(...ERROR_KINDS),
      httpStatus: fc.integer({ min: 400, max: 599 }),
      retryAfterMs: fc.integer({ min: 0, max: 120_000 }),
      message: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: ["kind"] },
  )
  .map((e) => ({ ...e, errorClass: errorClassOf(e.kind) }));

export const arbBreakerConfig: fc.Arbitrary<BreakerConfig> = fc.record({
  failureThreshold: fc.integer({ min: 1, max: 6 }),
  cooldownMs: fc.integer({ min: 0, max: 120_000 }),
});

export const arbBreaker: fc.Arbitrary<Breaker> = fc.record({
  state: fc.constantFrom("closed", "open", "half_open"),
  consecutiveFailures: fc.integer({ min: 0, max: 10 }),
  openedAt: fc.option(arbTime, { nil: null }),
  forced: fc.constantFrom("open", "closed", null),
  forcedReason: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
  probeInFlight: fc.boolean(),
});

export const arbContract: fc.Arbitrary<GateContract> = fc
  .record({
    effect: arbEffect,
    approval: fc.constantFrom("required", "not_required"),
    maxAttempts: fc.integer({ min: 1, max: 6 }),
    baseMs: fc.integer({ min: 0, max: 10_000 }),
    extraMs: fc.integer({ min: 0, max: 1_000_000 }),
    keyRetentionMs: fc.option(fc.integer({ min: 0, max: 3_000_000 }), { nil: null }),
    approvalTtlMs: fc.option(fc.integer({ min: APPROVAL_TTL_MS.min, max: APPROVAL_TTL_MS.max }), { nil: null }),
  })
  .map(({ baseMs, extraMs, ...rest }) => ({ ...rest, backoff: { baseMs, maxMs: baseMs + extraMs } }));

export const arbOperation: fc.Arbitrary<GateOperation> = fc.record({
  phase: fc.constantFrom(...PHASES),
  attempt: fc.integer({ min: 0, max: 8 }),
  evidence: fc.constantFrom(...EFFECT_EVIDENCE),
  approvedAttempt: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }),
  firstDispatchedAt: fc.option(arbTime, { nil: null }),
  notBefore: fc.option(arbTime, { nil: null }),
  lastError: fc.option(arbClassifiedError, { nil: null }),
  rejectionReason: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
  approvalExpiresAt: fc.option(arbTime, { nil: null }),
});

export const arbGateInput: fc.Arbitrary<GateInput> = fc.record({
  operation: arbOperation,
  contract: arbContract,
  breaker: fc.option(arbBreaker, { nil: null }),
  breakerConfig: arbBreakerConfig,
  now: fc.integer({ min: NOW - 500_000, max: NOW + 500_000 }),
});

/** A deterministic random source for tests that need one: fast-check shrinks the seed, not the calls. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32: tiny, good enough for spreading jitter in tests.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
}
