// A 409 from dispatch: wait and try again, or hand the operation over with the gate's decision.
import type { ApiProblem, Operation } from "./client";
import { DEFAULT_WAIT_MS, pause } from "./backoff";
import type { LeaseKeeper } from "./lease-keeper";
import { snapshot } from "./operation-snapshot";
import type { ToolRun } from "./run-options";
import { leaseLost, resultFor, settles, summarize, waiting, type RunToolResult } from "./run-result";

export type Refusal = { kind: "settled"; result: RunToolResult } | { kind: "again"; waitedMs: number };

export async function onDispatchRefusal(
  run: ToolRun,
  problem: ApiProblem,
  current: Operation,
  keeper: LeaseKeeper,
): Promise<Refusal> {
  switch (problem.code) {
    case "retry_not_due":
    case "breaker_open": {
      const waitMs = problem.decision?.retryAfterMs ?? DEFAULT_WAIT_MS;
      if (waitMs > run.maxWaitMs) {
        const operation = await snapshot(run.client, current);
        const decision = problem.decision ?? operation.decision;
        const result: RunToolResult =
          problem.code === "breaker_open"
            ? { status: "unavailable", operation: summarize(operation), decision }
            : waiting(operation, decision, waitMs);
        return { kind: "settled", result };
      }
      await pause(run, waitMs, keeper);
      return { kind: "again", waitedMs: waitMs };
    }
    case "stale_fence":
    case "lease_expired":
      return {
        kind: "settled",
        result: leaseLost(await snapshot(run.client, current), problem.code, problem.decision),
      };
    case "approval_required":
    case "reconcile_required": {
      const operation = await snapshot(run.client, current);
      const decision = problem.decision ?? operation.decision;
      const status = problem.code === "approval_required" ? "needs_approval" : "needs_reconcile";
      return { kind: "settled", result: { status, operation: summarize(operation), decision } };
    }
    default: {
      // budget_spent, already_finished, and any refusal code added later: the decision says where it stands.
      const operation = await snapshot(run.client, current);
      const decision = problem.decision ?? operation.decision;
      if (!problem.decision && !settles(decision)) throw problem;
      return { kind: "settled", result: resultFor(operation, decision) };
    }
  }
}
