// /api/v1/contracts: every tool contract at its current version; /api/v1/contracts/{tool}: read one, or create or
// replace it (admin scope), each change a new version.
import { jsonReply } from "@/lib/platform/http/problem";
import { validBody } from "@/lib/platform/http/request-body";
import { contractBodySchema, TOOL_NAME } from "@/lib/ledger/contracts/contract-schema";
import { getContract, listContracts, putContract } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError } from "@/lib/ledger/errors";
import { keyed } from "../endpoint";

/** The router has already decoded the path segment; decoding again would turn "a%2541" into "aA". */
function toolName(tool: string): string {
  if (!TOOL_NAME.test(tool))
    throw new LedgerError("invalid_body", "A tool name is letters, digits and . _ : - only, at most 128.");
  return tool;
}

export const listContractsEndpoint = keyed(["agent", "operator"], async ({ ledger }) =>
  jsonReply({ items: await listContracts(ledger), nextCursor: null }),
);

export const getContractEndpoint = keyed(["agent", "operator"], async ({ ledger, params }) =>
  jsonReply(await getContract(ledger, toolName(params.tool!))),
);

export const putContractEndpoint = keyed(["admin"], async ({ body, ledger, params, actor, now }) => {
  const tool = toolName(params.tool!);
  const result = await putContract(ledger, tool, validBody(await body(), contractBodySchema), actor, now);
  return jsonReply(result.contract, result.created ? 201 : 200);
});
