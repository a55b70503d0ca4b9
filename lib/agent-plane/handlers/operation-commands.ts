// POST /api/v1/operations/{id}/<command>: the worker's lane (claim, heartbeat, dispatch, outcome: the planning key
// only), the shared lane (reconcile, reject: the planner, or a key that sees every operation) and the human gate
// (approve, replay: a key bound to a person; an agent key gets 403 person_required from the ledger, which decides).
import { z } from "zod";
import { errorReply } from "@/lib/platform/http/error-reply";
import { jsonReply } from "@/lib/platform/http/problem";
import { validBody } from "@/lib/platform/http/request-body";
import {
  claimBody,
  decisionBody,
  dispatchBody,
  heartbeatBody,
  outcomeBody,
  reconcileBody,
} from "@/lib/agent-plane/schemas";
import { approveOperation, rejectOperation } from "@/lib/ledger/commands/approval";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { claimLease, heartbeatLease } from "@/lib/ledger/commands/lease";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";
import { replayOperation } from "@/lib/ledger/commands/replay";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import type { ApiScope, KeyActor } from "@/lib/platform/auth/api-keys";
import type { Ledger } from "@/lib/ledger/ledger";
import { keyed, type Endpoint } from "../endpoint";

/**
 * A command on one operation that takes its validated body as it is and answers the operation: the ledger's command,
 * named for the test build's kill point.
 */
function bodyCommand<S extends z.ZodType>(
  scopes: ApiScope[],
  schema: S,
  run: (ledger: Ledger, id: string, input: z.infer<S>, actor: KeyActor, now: Date) => Promise<unknown>,
  command: string,
): Endpoint {
  return keyed(
    scopes,
    async ({ body, ledger, params, actor, now }) =>
      jsonReply(await run(ledger, params.id!, validBody(await body(), schema), actor, now)),
    command,
  );
}

/** Take the run lease; the fence increases with every claim. */
export const claimEndpoint = bodyCommand(["agent"], claimBody, claimLease, "claim");

/** Extend the run lease; a stale fence is refused. */
export const heartbeatEndpoint = bodyCommand(["agent"], heartbeatBody, heartbeatLease, "heartbeat");

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
export const outcomeEndpoint = bodyCommand(["agent"], outcomeBody, reportOutcome, "outcome");

/** Evidence moves UNKNOWN to RECONCILED. */
export const reconcileEndpoint = bodyCommand(["agent", "operator"], reconcileBody, reconcileOperation, "reconcile");

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
