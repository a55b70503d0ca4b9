// POST /api/v1/operations/{id}/outcome: confirmed, failed (classified; the gate picks the next step, within the run's
// allowance) or unknown.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { outcomeBody } from "@/lib/api/schemas";
import { reportOutcomeInRun } from "@/lib/ledger/runs/run-outcome";

export const POST = apiRoute<{ id: string }>(["agent"], async ({ req, ledger, params, actor, now }) =>
  json(await reportOutcomeInRun(ledger, params.id, await readJson(req, outcomeBody), actor, now)),
);

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
