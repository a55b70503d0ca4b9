// GET /api/v1/contracts: every tool contract at its current version.
import { json, otherMethods } from "@/lib/api/problem";
import { apiRoute } from "@/lib/api/route";
import { listContracts } from "@/lib/ledger/contracts";

export const GET = apiRoute([], async ({ client }) => json({ items: await listContracts(client), nextCursor: null }));

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
