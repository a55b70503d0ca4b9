// POST /api/v1/operations/{id}/<command>: the worker's lane (claim, heartbeat, dispatch, outcome: the planning key
// only), the shared lane (reconcile, reject: the planner, or a key that sees every operation) and the human gate
// (approve, replay: a key bound to a person; an agent key gets 403 person_required from the ledger, which decides).
import { z } from "zod";
import { errorReply } from "@/lib/api/error-reply";
import { jsonReply } from "@/lib/api/problem";
import { validBody } from "@/lib/api/request-body";
import { claimBody, decisionBody, dispatchBody, heartbeatBody, outcomeBody, reconcileBody } from "@/lib/api/schemas";
import { approveOperation, rejectOperation } from "@/lib/ledger/commands/approval";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { claimLease, heartbeatLease } from "@/lib/ledger/commands/lease";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";
import { replayOperation } from "@/lib/ledger/commands/replay";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { keyed } from "../endpoint";

/** Take the run lease; the fence increases with every claim. */
export const claimEndpoint = keyed(
  ["agent"],
  async ({ body, ledger, params, actor, now }) =>
    jsonReply(await claimLease(ledger, params.id!, validBody(await body(), claimBody), actor, now)),
  "claim",
);

/** Extend the run lease; a stale fence is refused. */
export const heartbeatEndpoint = keyed(
  ["agent"],
  async ({ body, ledger, params, actor, now }) =>
    jsonReply(await heartbeatLease(ledger, params.id!, validBody(await body(), heartbeatBody), actor, now)),
  "heartbeat",
);

/** The gate decides; DISPATCHED is durable before the answer lets the worker call the provider. */
export const dispatchEndpoint = keyed(
  ["agent"],
  async ({ body, ledger, params, actor, now }) => {
    const result = await dispatchOperation(ledger, params.id!, validBody(await body(), dispatchBody), actor, now);
    return "refused" in result ? errorReply(result.refused) : jsonReply(result.operation);
  },
  "dispatch",
);

/** Confirmed, failed (classified; the gate picks the next step, within the run's allowance) or unknown. */
export const outcomeEndpoint = keyed(
  ["agent"],
  async ({ body, ledger, params, actor, now }) =>
    jsonReply(await reportOutcome(ledger, params.id!, validBody(await body(), outcomeBody), actor, now)),
  "outcome",
);

/** Evidence moves UNKNOWN to RECONCILED. */
export const reconcileEndpoint = keyed(
  ["agent", "operator"],
  async ({ body, ledger, params, actor, now }) =>
    jsonReply(await reconcileOperation(ledger, params.id!, validBody(await body(), reconcileBody), actor, now)),
  "reconcile",
);

/** The person a key is bound to grants exactly one attempt (or gives one of the quorum's approvals). */
export const approveEndpoint = keyed(
  ["agent", "operator"],
  async ({ body, ledger, params, actor, now }) => {
    const { reason } = validBody(await body(), decisionBody);
    return jsonReply(await approveOperation(ledger, params.id!, { reason }, actor, now));
  },
  "approve",
);

/** A person ends the operation, or an agent key gives up its own; the reason reaches the agent. */
export const rejectEndpoint = keyed(
  ["agent", "operator"],
  async ({ body, ledger, params, actor, now }) => {
    const { reason } = validBody(await body(), decisionBody);
    return jsonReply(await rejectOperation(ledger, params.id!, { reason }, actor, now));
  },
  "reject",
);

const replayBody = z
  .object({
    /** The edited arguments (a JSON object); the original's when absent. */
    args: z.json().optional(),
    reason: z.string().trim().min(1, "a reason is required").max(2000),
  })
  .strict();

/** A person replays an operation that is over as a NEW operation (a new key, `replayOf` the original). */
export const replayEndpoint = keyed(
  ["agent", "operator"],
  async ({ body, ledger, params, actor, now }) => {
    const { args, reason } = validBody(await body(), replayBody);
    const replay = await replayOperation(ledger, params.id!, { args, reason }, actor, now);
    return jsonReply(replay, 201, { location: `/api/v1/operations/${replay.id}` });
  },
  "replay",
);
