// A run's allowance (docs/run-allowance.md): a deadline, a number of retries and a total backoff an agent gave one run,
// spent across all of its operations. The gate asks it before it schedules a retry.

/** What the gate reads of a run's allowance; times are epoch milliseconds, and `null` means "no bound". */
export interface RunBudget {
  runId: string;
  deadlineAt: number | null;
  maxRetries: number | null;
  maxBackoffMs: number | null;
  /** Retries the run's operations were given so far, not counting the one being decided. */
  retriesUsed: number;
  /** Backoff the run's scheduled retries waited or will wait so far. */
  backoffUsedMs: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Why the run cannot give a retry that would wait `delayMs` from `now`, as a clause; null when it can. The count is
 * checked first, then the deadline (judged at the time the retry would leave), then the total backoff.
 */
export function runAllowanceRefusal(run: RunBudget, now: number, delayMs: number): string | null {
  const name = `the run ${run.runId}`;
  if (run.maxRetries !== null && run.retriesUsed >= run.maxRetries) {
    return `${name} has used its allowance of ${run.maxRetries} ${run.maxRetries === 1 ? "retry" : "retries"} across its operations`;
  }
  const leavesAt = now + delayMs;
  if (run.deadlineAt !== null && leavesAt > run.deadlineAt) {
    return `the next retry would leave at ${iso(leavesAt)}, past the deadline of ${name} (${iso(run.deadlineAt)})`;
  }
  if (run.maxBackoffMs !== null && run.backoffUsedMs + delayMs > run.maxBackoffMs) {
    return (
      `a backoff of ${delayMs} ms would bring ${name} to ${run.backoffUsedMs + delayMs} ms of backoff, ` +
      `beyond its allowance of ${run.maxBackoffMs} ms`
    );
  }
  return null;
}
