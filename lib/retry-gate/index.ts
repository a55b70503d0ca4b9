// The retry gate's public surface: the pure domain core that the ledger, the API and the console all decide with.
export * from "./types";
export { TRANSITIONS, IllegalTransitionError, assertTransition, isLegalTransition, isTerminal } from "./phases";
export { classifyError, errorClassOf, parseRetryAfter } from "./classify-error";
export { backoffCap, backoffDelay, retryDelay } from "./backoff";
export {
  CLOSED_BREAKER,
  breakerAllowsDispatch,
  effectiveBreakerState,
  nextBreaker,
  type BreakerEvent,
  type BreakerVerdict,
} from "./breaker";
export { decide, decideAfterFailure, describeError, type FailureStep } from "./decide";
export { assertNever } from "./exhaustive";
export { APPROVAL_TTL_MS, approvalExpired, approvalExpiresAt, approvalTtl } from "./approval-expiry";
