// The attempts of one claimed operation: dispatch, call, report, and back off, until the gate stops saying "go again".
import { ApiProblem, type Operation, type OutcomeInput } from "./client";
import { describeOutcome, logAttempt } from "./attempt-log";
import { DEFAULT_WAIT_MS, pause } from "./backoff";
import { onDispatchRefusal } from "./dispatch-refusal";
import type { LeaseKeeper } from "./lease-keeper";
import { snapshot } from "./operation-snapshot";
import { outcomeBody, reportOutcome, type OutcomeReport } from "./outcome-report";
import { callBounded, type ProviderCall } from "./provider-call";
import { decisionEvent, inExecutorSpan } from "./tracing";
import type { ToolRun } from "./run-options";
import { leaseLost, resultFor, waiting, type RunToolResult } from "./run-result";

type Attempt =
  | { kind: "lease_lost" }
  | {
      kind: "reported";
      call: Exclude<ProviderCall, { kind: "lease_lost" }>;
      outcome: OutcomeInput;
      report: OutcomeReport;
    };

/** One dispatched attempt's provider call and report, inside its span; the gate's decision is the span's event. */
function attemptSpan(run: ToolRun, dispatched: Operation, fence: number, keeper: LeaseKeeper): Promise<Attempt> {
  const attributes = { "opledger.operation.id": dispatched.id, "opledger.attempt": dispatched.attempt };
  return inExecutorSpan(`opledger.attempt ${run.tool}`, attributes, async (span): Promise<Attempt> => {
    const call = await callBounded(run, dispatched, keeper);
    if (call.kind === "lease_lost") return { kind: "lease_lost" };
    const outcome = outcomeBody(fence, call);
    const report = await reportOutcome(run, dispatched, outcome);
    if (report.kind === "reported") decisionEvent(span, report.operation.decision);
    return { kind: "reported", call, outcome, report };
  });
}

/** The dispatch / call / report loop, until the gate says something other than "go again". */
export async function runAttempts(
  run: ToolRun,
  planned: Operation,
  fence: number,
  keeper: LeaseKeeper,
): Promise<RunToolResult> {
  let current = planned;
  let waitedMs = 0;
  for (;;) {
    run.signal?.throwIfAborted();
    if (keeper.lost) return leaseLost(await snapshot(run.client, current), keeper.lost, null);

    let dispatched: Operation;
    try {
      dispatched = await run.client.dispatch(current.id, { fence }, run.signal);
    } catch (error) {
      if (!(error instanceof ApiProblem) || error.status !== 409) throw error;
      const refusal = await onDispatchRefusal(run, error, current, keeper);
      if (refusal.kind === "settled") return refusal.result;
      waitedMs += refusal.waitedMs;
      continue;
    }

    current = dispatched;
    await run.options.onStep?.({ step: "dispatched", operation: dispatched, fence });
    const attempt = await attemptSpan(run, dispatched, fence, keeper);
    if (attempt.kind === "lease_lost") {
      logAttempt(run, dispatched.attempt, "lease taken over, outcome not reported", waitedMs, null);
      return leaseLost(await snapshot(run.client, current), keeper.lost ?? "stale_fence", null);
    }

    const { call, outcome, report } = attempt;
    if (report.kind === "lease_lost") {
      logAttempt(run, dispatched.attempt, `${outcome.result}, report refused (${report.code})`, waitedMs, null);
      return leaseLost(await snapshot(run.client, current), report.code, report.decision);
    }
    current = report.operation;
    await run.options.onStep?.({ step: "reported", operation: current, fence });
    const decision = current.decision;
    logAttempt(run, dispatched.attempt, describeOutcome(outcome), waitedMs, decision);
    waitedMs = 0;

    switch (decision.action) {
      case "STOP":
      case "RECONCILE":
      case "APPROVAL":
      case "UNAVAILABLE":
        return call.kind === "answered" && call.result.ok
          ? resultFor(current, decision, call.result)
          : resultFor(current, decision);
      case "DISPATCH":
      case "RETRY":
      case "RETRY_SAME_KEY":
      case "WAIT": {
        const waitMs = decision.retryAfterMs ?? (decision.action === "WAIT" ? DEFAULT_WAIT_MS : 0);
        if (waitMs > run.maxWaitMs) return waiting(current, decision, waitMs);
        // The gate may want a retry, but a caller that aborted wants none.
        run.signal?.throwIfAborted();
        await pause(run, waitMs, keeper);
        waitedMs = waitMs;
        continue;
      }
      default: {
        const unhandled: never = decision.action;
        throw new Error(`unhandled decision ${String(unhandled)}`);
      }
    }
  }
}
