// The benchmarked tool call: one contract (an idempotent tool behind a dependency with a circuit breaker) and its
// arguments.
import type { ContractBody } from "@/lib/ledger/contracts/contract-schema";

export const BENCH_TOOL = "bench.charge";

export const BENCH_CONTRACT: ContractBody = {
  effect: "IDEMPOTENT",
  idempotencyKey: "optional",
  reconcile: null,
  approval: "not_required",
  maxAttempts: 3,
  backoff: { baseMs: 100, maxMs: 2000 },
  keyRetentionMs: 24 * 60 * 60 * 1000,
  dependency: "bench-provider",
  description: "A synthetic tool for npm run bench: every call is confirmed at once.",
};

/** Arguments of the n-th call of an agent: small, like most tool calls. */
export function benchArgs(agent: number, n: number): { customer: string; amountCents: number; note: string } {
  return { customer: `cus_${agent}_${n}`, amountCents: 1000 + (n % 97), note: "benchmark" };
}

/** How many calls run at once: the "16 concurrent agents". */
export const AGENTS = 16;

/** A lease long enough that no lifecycle ever loses it during a benchmark. */
export const LEASE_MS = 60_000;
