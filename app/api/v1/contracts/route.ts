// GET /api/v1/contracts: every tool contract at its current version.
import { json, otherMethods } from "@/lib/api/problem";
import { apiRoute } from "@/lib/api/route";
import { listContracts } from "@/lib/ledger/contracts/contract-versions";

export const GET = apiRoute(["agent", "operator"], async ({ ledger }) =>
  json({ items: await listContracts(ledger), nextCursor: null }),
);

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
