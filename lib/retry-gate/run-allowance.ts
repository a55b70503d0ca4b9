// A run's allowance (docs/run-allowance.md): a deadline, a number of retries and a total backoff an agent gave one run,
// spent across all of its operations. The gate asks it before it schedules a retry, and again before a retry leaves.

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

/** Which of the run's bounds refused a retry: its `maxRetries`, its `deadlineAt` or its `maxBackoffMs`. */
export const RUN_ALLOWANCE_BOUNDS = ["retries", "deadline", "backoff"] as const;
export type RunAllowanceBound = (typeof RUN_ALLOWANCE_BOUNDS)[number];

/** The run whose allowance refused a retry, and the bound that did: a decision carries it as `runAllowance`. */
export interface RunAllowanceStop {
  runId: string;
  bound: RunAllowanceBound;
}

export interface RunAllowanceRefusal extends RunAllowanceStop {
  /** Why, as a clause for the gate's sentence. */
  clause: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Why the run cannot give a retry that would wait `delayMs` from `now`; null when it can. The count is checked first,
 * then the deadline (judged at the time the retry would leave), then the total backoff. A retry `counted` already (it
 * was scheduled, its retry and backoff spent then) is checked against the deadline alone.
 */
export function runAllowanceRefusal(
  run: RunBudget,
  now: number,
  delayMs: number,
  counted = false,
): RunAllowanceRefusal | null {
  const name = `the run ${run.runId}`;
  const refusal = (bound: RunAllowanceBound, clause: string) => ({ runId: run.runId, bound, clause });
  if (!counted && run.maxRetries !== null && run.retriesUsed >= run.maxRetries) {
    return refusal(
      "retries",
      `${name} has used its allowance of ${run.maxRetries} ${run.maxRetries === 1 ? "retry" : "retries"} across its operations`,
    );
  }
  const leavesAt = now + delayMs;
  if (run.deadlineAt !== null && leavesAt > run.deadlineAt) {
    return refusal(
      "deadline",
      `the next retry would leave at ${iso(leavesAt)}, past the deadline of ${name} (${iso(run.deadlineAt)})`,
    );
  }
  if (!counted && run.maxBackoffMs !== null && run.backoffUsedMs + delayMs > run.maxBackoffMs) {
    return refusal(
      "backoff",
      `a backoff of ${delayMs} ms would bring ${name} to ${run.backoffUsedMs + delayMs} ms of backoff, ` +
        `beyond its allowance of ${run.maxBackoffMs} ms`,
    );
  }
  return null;
}
