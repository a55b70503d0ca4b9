// The MCP gateway's call in two commits (docs/mcp.md, "What happens to a call"): a new operation is planned, claimed
// and dispatched in one transaction, so the intent is durable before the request leaves, and the outcome is the second.
// Each step keeps its own rules and audit records (plan.ts, lease.ts, dispatch.ts): this command only runs them in one
// transaction. A call that is an existing operation (a retry, a concurrent twin, a call after an approval) is planned
// and claimed as before, and its caller dispatches it.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../actor";
import { operationView, type OperationView } from "../reads/operation-view";
import { DraftTx } from "../store/draft-tx";
import { checkLane } from "./authority";
import { dispatchStep, type DispatchResult } from "./dispatch";
import { planWith, type PlanInput } from "./plan";

export interface GatewayPlan {
  /** The call's operation, leased to the caller. */
  operation: OperationView;
  /** A new operation's dispatch, committed with its plan; absent when the call is an existing operation. */
  dispatched?: DispatchResult;
}

export async function planAndDispatch(
  ledger: Ledger,
  input: PlanInput & { claim: NonNullable<PlanInput["claim"]> },
  actor: Actor,
  now: Date,
): Promise<GatewayPlan> {
  const planned = await planWith(ledger, input, actor, now, async (tx, { draft, audit, contract, dependency }) => {
    checkLane(draft, actor, "agent");
    const pending = new DraftTx(tx, draft);
    const dispatched = await dispatchStep(
      { fence: draft.fence },
      actor,
      now,
    )(pending, {
      op: draft,
      contract,
      dependency,
      attempt: null,
    });
    const row = await pending.write(audit);
    return { operation: operationView(row, contract, dependency, now), dispatched };
  });
  return "created" in planned ? planned.created : { operation: planned.replayed.operation };
}
