// GET and PUT /api/v1/runs/{runId}: a run's allowance (deadline, retries, backoff) and what its operations used of it.
// Only the agent key that owns the run reads or declares it (docs/run-allowance.md).
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { getRunAllowance, putRunAllowance, runAllowanceBody } from "@/lib/ledger/runs/run-allowances";

type Params = { runId: string };

export const GET = apiRoute<Params>(["agent"], async ({ ledger, params, actor, now }) =>
  json(await getRunAllowance(ledger, params.runId, actor, now)),
);

export const PUT = apiRoute<Params>(["agent"], async ({ req, ledger, params, actor, now }) => {
  const body = await readJson(req, runAllowanceBody);
  const { allowance, created } = await putRunAllowance(ledger, params.runId, body, actor, now);
  return json(allowance, created ? 201 : 200);
});

const refused = otherMethods("GET", "PUT");
export const POST = refused.POST;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
