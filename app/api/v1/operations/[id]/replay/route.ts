// POST /api/v1/operations/{id}/replay: a person replays an operation that is over as a NEW operation (a new key,
// `replayOf` the original), with edited arguments if given. An agent key gets 403 person_required from the ledger.
import { z } from "zod";
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { replayOperation } from "@/lib/ledger/commands/replay";

const replayBody = z
  .object({
    /** The edited arguments (a JSON object); the original's when absent. */
    args: z.json().optional(),
    reason: z.string().trim().min(1, "a reason is required").max(2000),
  })
  .strict();

export const POST = apiRoute<{ id: string }>(["agent", "operator"], async ({ req, ledger, params, actor, now }) => {
  const body = await readJson(req, replayBody);
  const replay = await replayOperation(ledger, params.id, { args: body.args, reason: body.reason }, actor, now);
  return json(replay, 201, { location: `/api/v1/operations/${replay.id}` });
});

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
