// The vocabulary of the retry gate: side-effect classes, phases, decisions and the inputs the gate decides on.
import type { RunAllowanceStop, RunBudget } from "./run-allowance";

export const EFFECT_CLASSES = ["PURE", "IDEMPOTENT", "REPLAYABLE", "UNKNOWN", "NON_RETRYABLE"] as const;
export type EffectClass = (typeof EFFECT_CLASSES)[number];

/**
 * PLANNED .. RECONCILED are the six phases of the product design; the others are the terminal and
 * waiting phases the model needs (see docs/decisions/004-phase-set.md). EXPIRED: nobody decided on an approval
 * request within the contract's approvalTtlMs (docs/authority.md#approvals-are-bound-and-expire).
 */
export const PHASES = [
  "PLANNED",
  "AUTHORIZED",
  "DISPATCHED",
  "CONFIRMED",
  "UNKNOWN",
  "RECONCILED",
  "RETRY_SCHEDULED",
  "AWAITING_APPROVAL",
  "FAILED",
  "REJECTED",
  "EXPIRED",
] as const;
export type Phase = (typeof PHASES)[number];

export const DECISION_ACTIONS = [
  "DISPATCH",
  "RETRY",
  "RETRY_SAME_KEY",
  "WAIT",
  "RECONCILE",
  "APPROVAL",
  "UNAVAILABLE",
  "STOP",
] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];

const GO_ACTIONS: ReadonlySet<DecisionAction> = new Set(["DISPATCH", "RETRY", "RETRY_SAME_KEY"]);

/** Does the decision let the next attempt go (now, or once its retryAfterMs has passed)? */
export function letsAttemptGo(action: DecisionAction): boolean {
  return GO_ACTIONS.has(action);
}

/** An open breaker as an UNAVAILABLE decision names it; times are ISO 8601. */
export interface UnavailableDependency {
  /** The dependency's name; null for a breaker read without one. */
  dependency: string | null;
  /** Since when it is open (or was forced open); null when unknown. */
  openSince: string | null;
  /** When it lets a probe through; null while an operator holds it open. */
  nextTryAt: string | null;
  /** An operator forced it open: only a person closes it. */
  forced: boolean;
}

export interface Decision {
  action: DecisionAction;
  /** One sentence an operator can read at 3 a.m. */
  reason: string;
  /** Milliseconds until the action may be taken; present only when it is not "now". */
  retryAfterMs?: number;
  /** UNAVAILABLE: the dependency whose breaker holds the operation, since when, and when it tries again. */
  unavailable?: UnavailableDependency;
  /** STOP because of the run's allowance: the run, and which of its bounds refused the retry. */
  runAllowance?: RunAllowanceStop;
}

/** What a reconciliation (or the absence of one) proved about the world. */
export const EFFECT_EVIDENCE = ["none", "applied", "not_applied"] as const;
export type EffectEvidence = (typeof EFFECT_EVIDENCE)[number];

export const ERROR_KINDS = [
  "timeout",
  "connection_reset",
  "connection_refused",
  "rate_limited",
  "server_error",
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "unprocessable",
  "validation",
  /** The tool answered with an error (MCP `isError`): its contract's `toolError` says what that means. */
  "tool_error",
  "unclassified",
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** An error as a worker reports it: any field may be missing. */
export interface ReportedError {
  kind?: string;
  httpStatus?: number;
  message?: string;
  /** Provider's Retry-After, already converted to milliseconds. */
  retryAfterMs?: number;
}

export type ErrorClass = "transient" | "fatal" | "unclassified";

/**
 * What a contract says a tool's error answer means: fatal (never retried), transient (retried like a 5xx), or unknown
 * (the failed call may still have had its effect, so the outcome is unknown).
 */
export const TOOL_ERROR_MEANINGS = ["fatal", "transient", "unknown"] as const;
export type ToolErrorMeaning = (typeof TOOL_ERROR_MEANINGS)[number];

/**
 * What a contract's error rule says an error means: transient (retried with backoff), fatal (never retried), unknown
 * (the effect may have happened: reconcile), rate_limited (transient, waiting the provider's Retry-After).
 */
export const ERROR_RULE_MEANINGS = ["transient", "fatal", "unknown", "rate_limited"] as const;
export type ErrorRuleMeaning = (typeof ERROR_RULE_MEANINGS)[number];

/** One of a contract's ordered error rules: every condition it names must hold (lib/retry-gate/error-rules.ts). */
export interface ErrorRule {
  when: {
    /** A status, or an inclusive range [lo, hi]. */
    httpStatus?: number | [number, number];
    /** The reported kind as sent (ECONNRESET) or as the global table names it (connection_reset, tool_error). */
    kind?: string;
    /** An RE2 pattern, case-insensitive, searched in the message (an MCP tool's isError text). */
    message?: string;
  };
  then: ErrorRuleMeaning;
  /** Why, in words: the gate's reason quotes it. */
  why?: string;
}

export interface ClassifiedError {
  kind: ErrorKind;
  errorClass: ErrorClass;
  httpStatus?: number;
  retryAfterMs?: number;
  message?: string;
  /** The contract's error rule that classified it, as its reason names it ("rule 2 of payments.charge: ..."). */
  rule?: string;
}

export type KeyPolicy = "required" | "optional" | "unsupported";
export type ApprovalPolicy = "required" | "not_required";

/** The part of a tool contract version that the gate reads. */
export interface GateContract {
  effect: EffectClass;
  approval: ApprovalPolicy;
  maxAttempts: number;
  backoff: { baseMs: number; maxMs: number };
  keyRetentionMs?: number | null;
  /** How long an operation may wait for a person before it is EXPIRED; null means the default (24 h). */
  approvalTtlMs: number | null;
}

/** The part of an operation that the gate reads. Times are epoch milliseconds. */
export interface GateOperation {
  phase: Phase;
  /** Attempts dispatched so far (the budget spent). */
  attempt: number;
  /** What a reconciliation proved; "none" until one did. */
  evidence: EffectEvidence;
  /** The attempt number a person approved, if any: it grants exactly that attempt. */
  approvedAttempt: number | null;
  firstDispatchedAt: number | null;
  /** Earliest time the next attempt may be dispatched (backoff, Retry-After). */
  notBefore: number | null;
  lastError: ClassifiedError | null;
  rejectionReason: string | null;
  /**
   * When the pending approval request runs out (`approvalExpiresAt(requestedAt, contract)`), read only while
   * AWAITING_APPROVAL so a deadline left over from an earlier request means nothing; null while nobody is asked.
   */
  approvalExpiresAt: number | null;
  /**
   * The earlier operation this one repeats: the same MCP call made again after its answer was delivered, a new intent
   * rather than a retry. Absent or null for every other operation.
   */
  repeatOf?: string | null;
}

export type BreakerState = "closed" | "open" | "half_open";

export interface Breaker {
  /** The dependency's name, for the sentences that tell a model or a person which service is down. */
  name?: string;
  state: BreakerState;
  consecutiveFailures: number;
  openedAt: number | null;
  /** A manual override by an operator: while set, the state is pinned. */
  forced: "open" | "closed" | null;
  forcedReason: string | null;
  /** In half-open, whether the single probe attempt is already out. */
  probeInFlight: boolean;
}

export interface BreakerConfig {
  failureThreshold: number;
  cooldownMs: number;
}

export interface GateInput {
  operation: GateOperation;
  contract: GateContract;
  /** The allowance of the operation's run, when its agent declared one (lib/retry-gate/run-allowance.ts). */
  run?: RunBudget | null;
  /** The dependency's breaker, or null when the contract names no dependency. */
  breaker: Breaker | null;
  breakerConfig: BreakerConfig;
  now: number;
}
