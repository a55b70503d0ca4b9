// Exponential backoff with full jitter, and the delay before a retry once the provider's Retry-After is taken into
// account.
import { type ClassifiedError } from "./types";

/** 2^52 ms is far beyond any maxMs; clamping keeps `baseMs * 2^n` finite and never NaN (0 * Infinity). */
const MAX_EXPONENT = 52;

function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** The upper bound of the jittered delay after `attempt` failed; whole milliseconds. */
export function backoffCap(attempt: number, backoff: { baseMs: number; maxMs: number }): number {
  // Attempt 0 or less has not failed yet; it gets the first step rather than a negative exponent.
  const exponent = Number.isFinite(attempt)
    ? Math.min(MAX_EXPONENT, Math.max(0, Math.floor(attempt) - 1))
    : MAX_EXPONENT;
  return Math.floor(Math.min(nonNegative(backoff.maxMs), nonNegative(backoff.baseMs) * 2 ** exponent));
}

/**
 * Full jitter (a uniform draw between 0 and the cap) rather than "cap plus a little noise",
 * because it spreads a thundering herd of retrying agents best for the same total wait.
 */
export function backoffDelay(
  attempt: number,
  backoff: { baseMs: number; maxMs: number },
  random: () => number,
): number {
  const cap = backoffCap(attempt, backoff);
  const draw = Math.floor(random() * (cap + 1));
  // A random source that returns 1, a negative number or NaN must still not break the bound.
  if (!Number.isFinite(draw)) return 0;
  return Math.min(cap, Math.max(0, draw));
}

/** The provider's Retry-After is a floor: retrying sooner only earns another 429. */
export function retryDelay(
  attempt: number,
  backoff: { baseMs: number; maxMs: number },
  error: ClassifiedError | null,
  random: () => number,
): number {
  const retryAfter = nonNegative(error?.retryAfterMs ?? 0);
  const delay = Math.max(backoffDelay(attempt, backoff, random), retryAfter);
  return Math.min(delay, Math.max(nonNegative(backoff.maxMs), retryAfter));
}
