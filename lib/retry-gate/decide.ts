// The retry gate: what may happen next with an operation, now, and why, in one sentence an operator can act on.
import { approvalExpired, approvalExpiresAt, approvalTtl } from "./approval-expiry";
import { retryDelay } from "./backoff";
import { breakerAllowsDispatch } from "./breaker";
import { runAllowanceRefusal, type RunAllowanceRefusal } from "./run-allowance";
import { assertNever } from "./exhaustive";
import {
  type ClassifiedError,
  type Decision,
  type DecisionAction,
  type EffectClass,
  type EffectEvidence,
  type GateInput,
  type GateOperation,
  type Phase,
  letsAttemptGo,
} from "./types";

/** What the rules for an operation that is ready for its next attempt can answer; STOP and WAIT come earlier. */
type ReadyAction = Exclude<DecisionAction, "STOP" | "WAIT">;
interface ReadyDecision extends Decision {
  action: ReadyAction;
}

function aTool(effect: EffectClass): string {
  switch (effect) {
    case "PURE":
      return "a PURE tool";
    case "IDEMPOTENT":
      return "an IDEMPOTENT tool";
    case "REPLAYABLE":
      return "a REPLAYABLE tool";
    case "UNKNOWN":
      // "an UNKNOWN tool" reads as "a tool we do not know"; the class is what is meant.
      return "an UNKNOWN-class tool";
    case "NON_RETRYABLE":
      return "a NON_RETRYABLE tool";
    default:
      return assertNever(effect, "effect class");
  }
}

/** "attempt 3 of 5"; an approved attempt beyond the budget says so instead of "6 of 5". */
function attemptOf(n: number, max: number): string {
  return n <= max ? `attempt ${n} of ${max}` : `attempt ${n} (beyond the budget of ${max})`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function capitalised(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

export function describeError(e: ClassifiedError): string {
  const described = describeByTable(e);
  return e.rule === undefined ? described : `${described} (${e.rule})`;
}

function describeByTable(e: ClassifiedError): string {
  const status = e.httpStatus === undefined ? "" : `${e.httpStatus} `;
  switch (e.errorClass) {
    case "transient":
    case "fatal":
      return `${e.errorClass} error ${status}${e.kind}`;
    case "unclassified":
      return `an unclassified error${status === "" ? "" : ` (status ${e.httpStatus})`}`;
    default:
      return assertNever(e.errorClass, "error class");
  }
}

function formatDuration(ms: number): string {
  const units: [number, string][] = [
    [3_600_000, "h"],
    [60_000, "min"],
    [1_000, "s"],
  ];
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}

/**
 * Evidence describes the attempt a reconciliation looked at. Once another attempt has left, the
 * operation is no longer RECONCILED and the old "not applied" says nothing about the new attempt,
 * whether or not the store remembered to clear it.
 */
function freshEvidence(op: GateOperation): EffectEvidence {
  return op.phase === "RECONCILED" ? op.evidence : "none";
}

/** Why the last attempt did not settle the operation, as a clause. */
function causeOf(op: GateOperation): string {
  if (op.phase === "UNKNOWN") return `the outcome of attempt ${op.attempt} is unknown`;
  if (op.phase === "RECONCILED" && op.evidence === "not_applied") {
    return `reconciliation proved attempt ${op.attempt} did not take effect`;
  }
  if (op.lastError !== null) return `attempt ${op.attempt} failed with ${describeError(op.lastError)}`;
  return `attempt ${op.attempt} did not succeed`;
}

function stop(reason: string): Decision {
  return { action: "STOP", reason: capitalised(reason) };
}

/** STOP because of the run's allowance: the sentence names the bound, and the decision carries it as data. */
function stoppedByRun(what: string, refusal: RunAllowanceRefusal): Decision {
  return { ...stop(`${what}: ${refusal.clause}.`), runAllowance: { runId: refusal.runId, bound: refusal.bound } };
}

/**
 * Was the retry this operation waits for counted when the gate scheduled it after a failure? Every other retry (a PURE
 * operation whose outcome is unknown, a retry after a reconciliation proved no effect, a retry a person approved) is
 * counted when it is dispatched (docs/run-allowance.md).
 */
export function retryCountedWhenScheduled(op: GateOperation): boolean {
  return op.phase === "RETRY_SCHEDULED" && op.approvedAttempt !== op.attempt + 1;
}

/**
 * A retry that would go is asked of the run's allowance again when it is to leave: past the run's deadline, or (when the
 * retry was not counted when scheduled) beyond its retries, it is not dispatched (STOP).
 */
function readyWithinRun(input: GateInput): Decision {
  const decision = decideReady(input);
  const { operation: op, run, now } = input;
  if (!run || op.attempt === 0 || !letsAttemptGo(decision.action)) return decision;
  const refusal = runAllowanceRefusal(run, now, decision.retryAfterMs ?? 0, retryCountedWhenScheduled(op));
  return refusal === null ? decision : stoppedByRun(`${subjectOf(input)} is not dispatched`, refusal);
}

function ready(action: ReadyAction, reason: string, retryAfterMs?: number): ReadyDecision {
  const decision: ReadyDecision = { action, reason: capitalised(reason) };
  if (retryAfterMs !== undefined) decision.retryAfterMs = retryAfterMs;
  return decision;
}

/**
 * An attempt that may go, but perhaps not yet: a backoff or Retry-After still running keeps the
 * action (so callers know what will happen) and says when, rather than turning it into WAIT.
 */
function go(
  input: GateInput,
  action: "DISPATCH" | "RETRY" | "RETRY_SAME_KEY",
  what: string,
  why: string,
): ReadyDecision {
  const { notBefore } = input.operation;
  const probe = probeClause(input);
  if (notBefore !== null && notBefore > input.now) {
    const wait = notBefore - input.now;
    return ready(action, `${what} in ${wait} ms: ${why}${probe}.`, wait);
  }
  return ready(action, `${what} now: ${why}${probe}.`);
}

function probeClause(input: GateInput): string {
  if (input.breaker === null) return "";
  const verdict = breakerAllowsDispatch(input.breaker, input.breakerConfig, input.now);
  return verdict.allowed && verdict.probe ? ", and it goes as the half-open breaker's single probe" : "";
}

/** `floorMs` lets a provider's Retry-After outlast a breaker that would reopen sooner. */
function unavailable(input: GateInput, subject: string, floorMs = 0): ReadyDecision | null {
  if (input.breaker === null) return null;
  const verdict = breakerAllowsDispatch(input.breaker, input.breakerConfig, input.now);
  if (verdict.allowed) return null;
  const wait = Math.max(verdict.retryAfterMs, floorMs);
  const also = floorMs > verdict.retryAfterMs ? ", when the backoff and the provider's Retry-After are over too" : "";
  const service = input.breaker.name ?? "this dependency";
  const decision = ready(
    "UNAVAILABLE",
    `${subject} is held because ${verdict.reason}; ask again in ${wait} ms${also}. Meanwhile, do not retry it: ` +
      `use another way that does not need ${service}, or tell the user it is unavailable (no retry budget is spent).`,
    wait,
  );
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  decision.unavailable = {
    dependency: input.breaker.name ?? null,
    openSince: iso(verdict.openSince),
    nextTryAt: iso(verdict.nextTryAt),
    forced: input.breaker.forced === "open",
  };
  return decision;
}

function budgetSpent(subject: string, op: GateOperation, max: number): ReadyDecision {
  return ready(
    "APPROVAL",
    `${subject} needs a person: the retry budget of ${max} attempts is spent and ${causeOf(op)}.`,
  );
}

/**
 * The key-retention rule: once the provider may have forgotten the key, the same key no longer converges,
 * so an IDEMPOTENT retry must be reconciled first — even one a person approved.
 */
function keyRetentionExpired(input: GateInput, subject: string): ReadyDecision | null {
  const { operation: op, contract, now } = input;
  const retention = contract.keyRetentionMs;
  if (contract.effect !== "IDEMPOTENT" || retention === null || retention === undefined) return null;
  if (op.firstDispatchedAt === null || freshEvidence(op) === "not_applied") return null;
  // Judged at the time the retry would actually leave, so a long backoff cannot carry it past the window.
  const leavesAt = Math.max(now, op.notBefore ?? now);
  if (leavesAt <= op.firstDispatchedAt + retention) return null;
  return ready(
    "RECONCILE",
    `${subject} must not reuse its key: the provider's key retention window (${formatDuration(retention)}) ` +
      `has passed since the first dispatch, so a retry with the same key is no longer safe; look the effect up first.`,
  );
}

/** Rule 8e: what the side-effect class allows when nothing else decided first. */
function byClass(input: GateInput, subject: string): ReadyDecision {
  const { operation: op, contract } = input;
  const max = contract.maxAttempts;
  const cause = causeOf(op);
  const evidence = freshEvidence(op);
  switch (contract.effect) {
    case "PURE":
      if (op.attempt < max) {
        return go(
          input,
          "RETRY",
          `${subject} may be retried`,
          `${cause}, and a PURE tool has no external effect to protect`,
        );
      }
      return budgetSpent(subject, op, max);
    case "IDEMPOTENT": {
      const expired = keyRetentionExpired(input, subject);
      if (expired) return expired;
      if (op.attempt < max) {
        return go(
          input,
          "RETRY_SAME_KEY",
          `${subject} may be retried with the same key`,
          `${cause}, and the same key converges to one result`,
        );
      }
      return budgetSpent(subject, op, max);
    }
    case "REPLAYABLE":
      if (evidence === "not_applied") {
        if (op.attempt < max) {
          return go(input, "RETRY_SAME_KEY", `${subject} may be retried with the same key`, cause);
        }
        return budgetSpent(subject, op, max);
      }
      return ready(
        "RECONCILE",
        `${subject} must wait for a reconciliation: ${cause}, and a REPLAYABLE tool may repeat only after checking the durable record.`,
      );
    case "UNKNOWN":
      if (evidence === "not_applied") {
        return ready(
          "APPROVAL",
          `${subject} needs a person: it was reconciled as not applied, but a retry of an UNKNOWN-class tool still needs a person.`,
        );
      }
      return ready(
        "RECONCILE",
        `${subject} must wait for a reconciliation: ${cause}, and the effect of an UNKNOWN-class tool may have happened without proof.`,
      );
    case "NON_RETRYABLE":
      return ready(
        "APPROVAL",
        `${subject} needs a person: ${cause}, and repeating a NON_RETRYABLE tool can create an unacceptable new effect, ` +
          "so a person must approve the retry.",
      );
    default:
      return assertNever(contract.effect, "effect class");
  }
}

/**
 * A repeat of a call whose answer was delivered is a new intent, not a retry: a tool whose second call may make a second
 * effect (NON_RETRYABLE, and UNKNOWN, whose effect nobody can look up) makes it only once a person approved it.
 */
function suspectedDuplicate(input: GateInput): string | null {
  const { operation: op, contract } = input;
  if (!op.repeatOf || op.attempt > 0 || (contract.effect !== "NON_RETRYABLE" && contract.effect !== "UNKNOWN")) {
    return null;
  }
  return (
    `it repeats an identical call whose answer was already delivered (operation ${op.repeatOf}), ` +
    `and a second call of ${aTool(contract.effect)} may make a second effect, so a person must approve it`
  );
}

/** The next attempt and the class, the subject of every sentence about what happens next. */
function subjectOf(input: GateInput): string {
  return `${attemptOf(input.operation.attempt + 1, input.contract.maxAttempts)} of ${aTool(input.contract.effect)}`;
}

/** Rule 8: PLANNED, RETRY_SCHEDULED, RECONCILED as not applied, and UNKNOWN for PURE. */
function decideReady(input: GateInput): ReadyDecision {
  const { operation: op, contract } = input;
  const next = op.attempt + 1;
  const approved = op.approvedAttempt === next;
  const subject = subjectOf(input);

  if (contract.approval === "required" && !approved) {
    return ready("APPROVAL", `${subject} needs a person: the contract requires a person to approve every attempt.`);
  }
  const duplicate = approved ? null : suspectedDuplicate(input);
  if (duplicate) return ready("APPROVAL", `${subject} needs a person: ${duplicate}.`);
  // The breaker comes before the budget so that an unavailable dependency never burns an attempt.
  const held = unavailable(input, subject);
  if (op.attempt === 0) {
    return (
      held ??
      go(
        input,
        "DISPATCH",
        `${subject} may be dispatched`,
        approved ? "a person approved the first attempt" : "the first attempt needs no retry decision",
      )
    );
  }
  if (held !== null) return held;
  const expired = keyRetentionExpired(input, subject);
  if (expired) return expired;
  if (approved) {
    const why = "it was approved by a person, and exactly one attempt is granted";
    return contract.effect === "PURE"
      ? go(input, "RETRY", `${subject} may be retried`, why)
      : go(input, "RETRY_SAME_KEY", `${subject} may be retried with the same key`, why);
  }
  return byClass(input, subject);
}

/** Rule 6: the operation already waits for a person; say which rule sent it there. */
function approvalReason(input: GateInput): string {
  const { operation: op, contract } = input;
  const subject = subjectOf(input);
  if (contract.approval === "required") {
    return `${subject} waits for a person: the contract requires a person to approve every attempt.`;
  }
  const duplicate = suspectedDuplicate(input);
  if (duplicate) return `${subject} waits for a person: ${duplicate}.`;
  if (op.attempt > 0) {
    const asRetry = decideReady({
      ...input,
      breaker: null,
      // RECONCILED keeps a "not applied" that sent it here in play; AWAITING_APPROVAL follows it directly.
      operation: {
        ...op,
        phase: op.evidence === "not_applied" ? "RECONCILED" : "RETRY_SCHEDULED",
        approvedAttempt: null,
        notBefore: null,
      },
    });
    if (asRetry.action === "APPROVAL") return asRetry.reason;
  }
  if (op.lastError?.errorClass === "unclassified") {
    return `${subject} waits for a person: ${causeOf(op)}, and an unclassified error is not retried without a person.`;
  }
  return `${subject} waits for a person to approve it.`;
}

/**
 * The same sentence whether or not the sweep has moved the operation to EXPIRED yet, so the agent, the audit record
 * and the console all read one answer. A replay is a new operation with its own approval
 * (docs/authority.md#approvals-are-bound-and-expire).
 */
function expiredReason(input: GateInput): string {
  return (
    `the approval request for ${subjectOf(input)} expired after ${formatDuration(approvalTtl(input.contract))} ` +
    `without a decision; a person can replay the operation.`
  );
}

function failedReason(input: GateInput): string {
  const { operation: op, contract } = input;
  const subject = `${attemptOf(op.attempt, contract.maxAttempts)} of ${aTool(contract.effect)}`;
  const error = op.lastError;
  if (error?.errorClass === "fatal") {
    return `${subject} failed with ${describeError(error)}, and a fatal error is never retried.`;
  }
  const last = error === null ? "" : ` (last error: ${describeError(error)})`;
  if (op.attempt >= contract.maxAttempts) {
    return `${subject} failed${last} and the retry budget of ${contract.maxAttempts} attempts is spent, so the operation failed for good.`;
  }
  return `${subject} failed${last}, and a failed operation is never retried.`;
}

export function decide(input: GateInput): Decision {
  const { operation: op, contract } = input;
  const tool = aTool(contract.effect);
  const current = attemptOf(op.attempt, contract.maxAttempts);
  switch (op.phase) {
    case "CONFIRMED":
      return stop(`${current} of ${tool} was confirmed by the provider, and a confirmed effect is never repeated.`);
    case "REJECTED":
      return stop(
        `the operation on ${tool} was rejected ("${op.rejectionReason ?? "no reason recorded"}") ` +
          `after ${plural(op.attempt, "attempt")}, and a rejected operation is never dispatched again.`,
      );
    case "FAILED":
      return stop(failedReason(input));
    case "EXPIRED":
      return stop(expiredReason(input));
    case "RECONCILED":
      switch (op.evidence) {
        case "applied":
          return stop(`reconciled: the effect of ${current} of ${tool} happened, so it is never repeated.`);
        case "not_applied":
          return readyWithinRun(input);
        case "none":
          // A reconciliation that proved nothing either way cannot license a repeat.
          return ready(
            "RECONCILE",
            `${current} of ${tool} is marked reconciled without evidence either way; look the effect up by its key before anything else.`,
          );
        default:
          return assertNever(op.evidence, "effect evidence");
      }
    case "DISPATCHED":
      return { action: "WAIT", reason: capitalised(`${current} of ${tool} is in flight; waiting for its outcome.`) };
    case "AUTHORIZED":
      // `attempt` counts dispatched attempts, so the authorized one is the next number.
      return {
        action: "WAIT",
        reason: capitalised(
          `${attemptOf(op.attempt + 1, contract.maxAttempts)} of ${tool} is authorized and about to be dispatched; ` +
            "waiting for its outcome.",
        ),
      };
    case "AWAITING_APPROVAL":
      // Past its deadline a request is never approved by default, even before the sweep has come by.
      if (approvalExpired(op, input.now)) return stop(expiredReason(input));
      return { action: "APPROVAL", reason: capitalised(approvalReason(input)) };
    case "UNKNOWN":
      // A PURE tool has no effect to look up, so its unknown outcome is just another failed attempt.
      if (contract.effect === "PURE") return readyWithinRun(input);
      return ready(
        "RECONCILE",
        `the outcome of ${current} of ${tool} is unknown; look the effect up by its key before anything else.`,
      );
    case "PLANNED":
    case "RETRY_SCHEDULED":
      return readyWithinRun(input);
    default:
      return assertNever(op.phase, "phase");
  }
}

export interface FailureStep {
  decision: Decision;
  phase: Phase;
  notBefore: number | null;
  /** The deadline of the request for a person, present exactly when the step asks one (AWAITING_APPROVAL). */
  approvalExpiresAt: number | null;
}

type ClassStep = Omit<FailureStep, "approvalExpiresAt">;

/**
 * The step after a dispatched attempt reported `failed`. `operation.attempt` already counts the
 * failed attempt. Any earlier evidence described an earlier attempt, so it is ignored here: the
 * attempt that just failed may have taken effect.
 */
export function decideAfterFailure(input: GateInput, error: ClassifiedError, random: () => number): FailureStep {
  const step = stepAfterFailure(input, error, random);
  const asking = step.phase === "AWAITING_APPROVAL";
  return { ...step, approvalExpiresAt: asking ? approvalExpiresAt(input.now, input.contract) : null };
}

function stepAfterFailure(input: GateInput, error: ClassifiedError, random: () => number): ClassStep {
  const { operation: op, contract } = input;
  const tool = aTool(contract.effect);
  const failed = attemptOf(op.attempt, contract.maxAttempts);
  switch (error.errorClass) {
    case "fatal":
      return {
        phase: "FAILED",
        notBefore: null,
        decision: stop(`${failed} of ${tool} failed with ${describeError(error)}: never retried.`),
      };
    case "transient":
      return scheduleRetry(input, error, random);
    case "unclassified":
      switch (contract.effect) {
        case "PURE":
          return scheduleRetry(input, error, random);
        case "REPLAYABLE":
        case "UNKNOWN":
          return {
            phase: "UNKNOWN",
            notBefore: null,
            decision: ready(
              "RECONCILE",
              `${failed} of ${tool} failed with ${describeError(error)}, so its effect is uncertain; ` +
                "look the effect up by its key before anything else.",
            ),
          };
        case "IDEMPOTENT":
        case "NON_RETRYABLE":
          return {
            phase: "AWAITING_APPROVAL",
            notBefore: null,
            decision: ready(
              "APPROVAL",
              `${failed} of ${tool} failed with ${describeError(error)}, and an unclassified error is not retried without a person.`,
            ),
          };
        default:
          return assertNever(contract.effect, "effect class");
      }
    default:
      return assertNever(error.errorClass, "error class");
  }
}

/** The run's allowance refuses a retry that would wait `waitMs`: the operation fails, saying why in words. */
function beyondRun(input: GateInput, error: ClassifiedError, waitMs: number): ClassStep | null {
  const refusal = input.run ? runAllowanceRefusal(input.run, input.now, waitMs) : null;
  if (refusal === null) return null;
  const { operation: op, contract } = input;
  const failed = `${attemptOf(op.attempt, contract.maxAttempts)} of ${aTool(contract.effect)}`;
  return {
    phase: "FAILED",
    notBefore: null,
    decision: stoppedByRun(`${failed} failed with ${describeError(error)} and is not retried`, refusal),
  };
}

function scheduleRetry(input: GateInput, error: ClassifiedError, random: () => number): ClassStep {
  const { operation: op, contract, now } = input;
  const asScheduled: GateOperation = {
    ...op,
    phase: "RETRY_SCHEDULED",
    approvedAttempt: null,
    evidence: "none",
    lastError: error,
    notBefore: null,
  };
  // The class rule first, without the contract's approval flag or the breaker: an attempt whose
  // effect may have happened must go to the unknowns queue, not wait behind a person or a breaker.
  const classRule = decideReady({
    ...input,
    breaker: null,
    contract: { ...contract, approval: "not_required" },
    operation: asScheduled,
  });
  switch (classRule.action) {
    case "RECONCILE":
      return { phase: "UNKNOWN", notBefore: null, decision: classRule };
    case "APPROVAL":
      return { phase: "AWAITING_APPROVAL", notBefore: null, decision: classRule };
    case "RETRY":
    case "RETRY_SAME_KEY":
    case "DISPATCH":
    case "UNAVAILABLE":
      break;
    default:
      return assertNever(classRule.action, "decision action");
  }

  // The random source is drawn only when a retry is possible, so seeded tests stay in step.
  const delay = retryDelay(op.attempt, contract.backoff, error, random);
  const scheduled: GateInput = { ...input, operation: { ...asScheduled, notBefore: now + delay } };
  const full = decideReady(scheduled);
  switch (full.action) {
    case "RETRY":
    case "RETRY_SAME_KEY":
    case "DISPATCH":
      return beyondRun(input, error, delay) ?? { phase: "RETRY_SCHEDULED", notBefore: now + delay, decision: full };
    case "UNAVAILABLE": {
      // The backoff and the provider's Retry-After still hold when the breaker would reopen sooner.
      const held = unavailable(scheduled, subjectOf(scheduled), delay) ?? full;
      const wait = held.retryAfterMs ?? delay;
      return beyondRun(input, error, wait) ?? { phase: "RETRY_SCHEDULED", notBefore: now + wait, decision: held };
    }
    case "RECONCILE":
      return { phase: "UNKNOWN", notBefore: null, decision: full };
    case "APPROVAL":
      return { phase: "AWAITING_APPROVAL", notBefore: null, decision: full };
    default:
      return assertNever(full.action, "decision action");
  }
}
