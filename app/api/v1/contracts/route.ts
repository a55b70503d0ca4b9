// GET /api/v1/contracts: every tool contract at its current version.
import { json } from "@/lib/api/problem";
import { apiRoute } from "@/lib/api/route";
import { listContracts } from "@/lib/ledger/contracts";

export const GET = apiRoute([], async ({ client }) => json({ items: await listContracts(client), nextCursor: null }));
