// /api/v1/runs/{runId}: a run's allowance (deadline, retries, backoff) and what its operations used of it. Only the
// agent key that owns the run reads or declares it (docs/run-allowance.md).
import { jsonReply } from "@/lib/platform/http/problem";
import { validBody } from "@/lib/platform/http/request-body";
import { getRunAllowance, putRunAllowance, runAllowanceBody } from "@/lib/ledger/runs/run-allowances";
import { keyed } from "../endpoint";

export const getRunEndpoint = keyed(["agent"], async ({ ledger, params, actor, now }) =>
  jsonReply(await getRunAllowance(ledger, params.runId!, actor, now)),
);

export const putRunEndpoint = keyed(["agent"], async ({ body, ledger, params, actor, now }) => {
  const declared = validBody(await body(), runAllowanceBody);
  const { allowance, created } = await putRunAllowance(ledger, params.runId!, declared, actor, now);
  return jsonReply(allowance, created ? 201 : 200);
});
