// GET and PUT /api/v1/contracts/{tool}: read a contract; create or replace it (admin scope), each change a new version.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { contractBodySchema, TOOL_NAME } from "@/lib/ledger/contracts/contract-schema";
import { getContract, putContract } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError } from "@/lib/ledger/errors";

type Params = { tool: string };

/** Next has already decoded the path segment; decoding again would turn "a%2541" into "aA". */
function toolName(tool: string): string {
  if (!TOOL_NAME.test(tool))
    throw new LedgerError("invalid_body", "A tool name is letters, digits and . _ : - only, at most 128.");
  return tool;
}

export const GET = apiRoute<Params>(["agent", "operator"], async ({ ledger, params }) =>
  json(await getContract(ledger, toolName(params.tool))),
);

export const PUT = apiRoute<Params>(["admin"], async ({ req, ledger, params, actor, now }) => {
  const tool = toolName(params.tool);
  const body = await readJson(req, contractBodySchema);
  const result = await putContract(ledger, tool, body, actor, now);
  return json(result.contract, result.created ? 201 : 200);
});

const refused = otherMethods("GET", "PUT");
export const POST = refused.POST;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
