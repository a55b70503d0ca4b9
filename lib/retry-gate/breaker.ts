// A per-dependency circuit breaker as a pure state machine: (breaker, event, config, now) -> next breaker.
import { assertNever } from "./exhaustive";
import { type Breaker, type BreakerConfig, type BreakerState } from "./types";

/**
 * A breaker that counts its half-open probes: `probeSuccesses` successful probes in a row so far. Absent means none,
 * so a Breaker written before probes were counted is read the same way.
 */
export type ProbedBreaker = Breaker & { probeSuccesses?: number };

/**
 * The tunable settings: `probes` successful half-open probes in a row close the breaker (absent means one, the
 * behaviour before it was tunable).
 */
export type TunedBreakerConfig = BreakerConfig & { probes?: number };

/** A dependency's settings until an admin edits them (docs/operators.md#tune-a-breaker: 5 failures, 30 s, 1 probe). */
export const DEFAULT_BREAKER_SETTINGS: Required<TunedBreakerConfig> = Object.freeze({
  failureThreshold: 5,
  cooldownMs: 30_000,
  probes: 1,
});

export const CLOSED_BREAKER: ProbedBreaker = Object.freeze({
  state: "closed",
  consecutiveFailures: 0,
  openedAt: null,
  forced: null,
  forcedReason: null,
  probeInFlight: false,
  probeSuccesses: 0,
});

function probesNeeded(config: TunedBreakerConfig): number {
  return Math.max(1, config.probes ?? 1);
}

export type BreakerEvent =
  | { type: "success" }
  | { type: "failure" }
  | { type: "probe" }
  | { type: "force_open"; reason: string }
  | { type: "force_close"; reason: string }
  | { type: "release" };

export type BreakerVerdict =
  | { allowed: true; probe: boolean }
  | {
      allowed: false;
      reason: string;
      retryAfterMs: number;
      /** Epoch ms: since when it is open, and when it lets a probe through (null while forced open). */
      openSince: number | null;
      nextTryAt: number | null;
    };

/** "the circuit breaker of payments-api", or the dependency's when the breaker has no name. */
export function breakerSubject(b: Breaker): string {
  return b.name ? `the circuit breaker of ${b.name}` : "the dependency's circuit breaker";
}

const iso = (ms: number): string => new Date(ms).toISOString();

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

function opened(b: ProbedBreaker, now: number, consecutiveFailures: number): ProbedBreaker {
  return { ...b, state: "open", consecutiveFailures, openedAt: now, probeInFlight: false, probeSuccesses: 0 };
}

function closed(b: ProbedBreaker): ProbedBreaker {
  return { ...b, state: "closed", consecutiveFailures: 0, openedAt: null, probeInFlight: false, probeSuccesses: 0 };
}

/**
 * One more success while open or half-open: it closes the breaker once `probes` have succeeded in a row; before that
 * the breaker stays half-open with no probe out, so the next one may go.
 */
function provedOnce(b: ProbedBreaker, config: TunedBreakerConfig): ProbedBreaker {
  const successes = (b.probeSuccesses ?? 0) + 1;
  if (successes >= probesNeeded(config)) return closed(b);
  return { ...b, state: "half_open", consecutiveFailures: 0, probeInFlight: false, probeSuccesses: successes };
}

export function nextBreaker(
  b: ProbedBreaker,
  event: BreakerEvent,
  config: TunedBreakerConfig,
  now: number,
): ProbedBreaker {
  switch (event.type) {
    case "force_open":
      return {
        ...b,
        state: "open",
        forced: "open",
        forcedReason: event.reason,
        openedAt: now,
        probeInFlight: false,
        probeSuccesses: 0,
      };
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
        // A late success from an attempt sent before the opening proves the dependency works: it counts as a
        // successful probe (with one probe, the default, it closes the breaker; with more, probing starts now).
        case "success":
          return provedOnce(b, config);
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
          return provedOnce(b, config);
        // A failed probe (or a straggler's failure) reopens it, and the probes start again from none.
        case "failure":
          return opened(b, now, failures);
        default:
          return assertNever(event, "breaker event");
      }
    default:
      return assertNever(state, "breaker state");
  }
}

export function breakerAllowsDispatch(b: ProbedBreaker, config: TunedBreakerConfig, now: number): BreakerVerdict {
  const subject = breakerSubject(b);
  if (b.forced === "open") {
    const at = b.openedAt === null ? "" : ` at ${iso(b.openedAt)}`;
    return {
      allowed: false,
      reason:
        `${subject} was forced open by an operator ("${b.forcedReason ?? "no reason given"}")${at} ` +
        `and stays open until a person closes it`,
      retryAfterMs: Math.max(0, config.cooldownMs),
      openSince: b.openedAt,
      nextTryAt: null,
    };
  }
  const state = effectiveBreakerState(b, config, now);
  switch (state) {
    case "closed":
      return { allowed: true, probe: false };
    case "open": {
      // effectiveBreakerState only reports "open" with an opening time inside the cooldown.
      const openedAt = b.openedAt ?? now;
      const remaining = Math.max(0, openedAt + config.cooldownMs - now);
      return {
        allowed: false,
        reason:
          `${subject} is open since ${iso(openedAt)} after ${b.consecutiveFailures} consecutive failures ` +
          `and lets a probe through at ${iso(openedAt + config.cooldownMs)} ` +
          `(${remaining} ms of its ${config.cooldownMs} ms cooldown remain)`,
        retryAfterMs: remaining,
        openSince: openedAt,
        nextTryAt: openedAt + config.cooldownMs,
      };
    }
    case "half_open":
      if (!b.probeInFlight) return { allowed: true, probe: true };
      return {
        allowed: false,
        reason:
          probesNeeded(config) === 1
            ? `${subject} is half-open and its single probe attempt is already in flight`
            : `${subject} is half-open and probe ${(b.probeSuccesses ?? 0) + 1} of ` +
              `${probesNeeded(config)} is already in flight`,
        retryAfterMs: Math.max(0, config.cooldownMs),
        openSince: b.openedAt,
        nextTryAt: now + Math.max(0, config.cooldownMs),
      };
    default:
      return assertNever(state, "breaker state");
  }
}
