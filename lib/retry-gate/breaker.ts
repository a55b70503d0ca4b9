// A per-dependency circuit breaker as a pure state machine: (breaker, event, config, now) -> next breaker.
import { assertNever } from "./exhaustive";
import { type Breaker, type BreakerConfig, type BreakerState } from "./types";

export const CLOSED_BREAKER: Breaker = Object.freeze({
  state: "closed",
  consecutiveFailures: 0,
  openedAt: null,
  forced: null,
  forcedReason: null,
  probeInFlight: false,
});

export type BreakerEvent =
  | { type: "success" }
  | { type: "failure" }
  | { type: "probe" }
  | { type: "force_open"; reason: string }
  | { type: "force_close"; reason: string }
  | { type: "release" };

export type BreakerVerdict =
  { allowed: true; probe: boolean } | { allowed: false; reason: string; retryAfterMs: number };

/**
 * The stored state only changes on events, so "open and cooled down" is read here as half-open
 * instead of needing a timer to flip it. An open breaker without an opening time cannot prove its
 * cooldown is running, so it is let through to a single probe rather than left open for ever.
 */
export function effectiveBreakerState(b: Breaker, config: BreakerConfig, now: number): BreakerState {
  if (b.forced !== null) return b.forced;
  if (b.state === "open" && (b.openedAt === null || now >= b.openedAt + config.cooldownMs)) return "half_open";
  return b.state;
}

function opened(b: Breaker, now: number, consecutiveFailures: number): Breaker {
  return { ...b, state: "open", consecutiveFailures, openedAt: now, probeInFlight: false };
}

function closed(b: Breaker): Breaker {
  return { ...b, state: "closed", consecutiveFailures: 0, openedAt: null, probeInFlight: false };
}

export function nextBreaker(b: Breaker, event: BreakerEvent, config: BreakerConfig, now: number): Breaker {
  switch (event.type) {
    case "force_open":
      return { ...b, state: "open", forced: "open", forcedReason: event.reason, openedAt: now, probeInFlight: false };
    case "force_close":
      return { ...closed(b), forced: "closed", forcedReason: event.reason };
    case "release":
      return { ...CLOSED_BREAKER };
    case "success":
    case "failure":
    case "probe":
      break;
    default:
      return assertNever(event, "breaker event");
  }

  // An operator's override pins the state; outcomes are still counted so the console shows them.
  if (b.forced !== null) {
    switch (event.type) {
      case "success":
        return { ...b, consecutiveFailures: 0 };
      case "failure":
        return { ...b, consecutiveFailures: b.consecutiveFailures + 1 };
      case "probe":
        return b;
      default:
        return assertNever(event, "breaker event");
    }
  }

  const failures = b.consecutiveFailures + 1;
  const state = effectiveBreakerState(b, config, now);
  switch (state) {
    case "closed":
      switch (event.type) {
        case "success":
          return { ...b, consecutiveFailures: 0 };
        case "failure":
          return failures >= config.failureThreshold
            ? opened(b, now, failures)
            : { ...b, consecutiveFailures: failures };
        case "probe":
          return b;
        default:
          return assertNever(event, "breaker event");
      }
    case "open":
      switch (event.type) {
        // A late success from an attempt sent before the opening proves the dependency works.
        case "success":
          return closed(b);
        // A late failure is counted but does not restart the cooldown, or stragglers would keep it open.
        case "failure":
          return { ...b, consecutiveFailures: failures };
        case "probe":
          return b;
        default:
          return assertNever(event, "breaker event");
      }
    case "half_open":
      switch (event.type) {
        case "probe":
          return { ...b, state: "half_open", probeInFlight: true };
        case "success":
          return closed(b);
        case "failure":
          return opened(b, now, failures);
        default:
          return assertNever(event, "breaker event");
      }
    default:
      return assertNever(state, "breaker state");
  }
}

export function breakerAllowsDispatch(b: Breaker, config: BreakerConfig, now: number): BreakerVerdict {
  if (b.forced === "open") {
    return {
      allowed: false,
      reason: `the dependency's circuit breaker was forced open by an operator ("${b.forcedReason ?? "no reason given"}")`,
      retryAfterMs: Math.max(0, config.cooldownMs),
    };
  }
  const state = effectiveBreakerState(b, config, now);
  switch (state) {
    case "closed":
      return { allowed: true, probe: false };
    case "open": {
      // effectiveBreakerState only reports "open" with an opening time inside the cooldown.
      const remaining = Math.max(0, (b.openedAt ?? now) + config.cooldownMs - now);
      return {
        allowed: false,
        reason:
          `the dependency's circuit breaker is open after ${b.consecutiveFailures} consecutive failures ` +
          `and ${remaining} ms of its ${config.cooldownMs} ms cooldown remain`,
        retryAfterMs: remaining,
      };
    }
    case "half_open":
      if (!b.probeInFlight) return { allowed: true, probe: true };
      return {
        allowed: false,
        reason: "the dependency's circuit breaker is half-open and its single probe attempt is already in flight",
        retryAfterMs: Math.max(0, config.cooldownMs),
      };
    default:
      return assertNever(state, "breaker state");
  }
}
