// The console's reads at scale, as the benchmark runs them: the ledger's pages and filters, the Unknowns queue and the
// navigation counts.
import type { Ledger } from "@/lib/ledger/ledger";
import { countQueues, listOperations, listQueue, type OperationFilter } from "@/lib/ledger/reads/operations";

/** The ledger page's default page size and the Unknowns page's (components/operations). */
export const LEDGER_PAGE = 50;
export const QUEUE_PAGE = 200;

export interface ConsoleCase {
  /** Short name used in figures and plans. */
  name: string;
  /** What it is, in the issue's words. */
  title: string;
  /** The same read over HTTP (a console route), for the production-build measurement. */
  path: string;
  run: (ledger: Ledger, now: Date) => Promise<unknown>;
}

/** Where the large ledger's deep pages start, found once per run. */
export interface DeepCursors {
  /** The id of the row LEDGER_PAGE + 10 rows from the oldest end: its page is (rows − 60) rows deep. */
  ledger: string;
  ledgerDepth: number;
  /** The Unknowns queue's last full page, by its keyset cursor. */
  unknowns: string | null;
  unknownsDepth: number;
  /** Sample values for the filters: a tool, a run id and an agent id that exist. */
  tool: string;
  runId: string;
  agentId: string;
}

export async function findDeepCursors(ledger: Ledger): Promise<DeepCursors> {
  const total = await ledger.db.operation.count();
  const oldest = await ledger.db.operation.findMany({
    select: { id: true },
    orderBy: { id: "asc" },
    take: 1,
    skip: LEDGER_PAGE + 10,
  });
  const middle = await ledger.db.operation.findFirst({
    select: { tool: true, runId: true, agentId: true },
    where: { runId: { not: null }, agentId: { not: null } },
    orderBy: { id: "asc" },
    skip: Math.floor(total / 2),
  });
  const unknownCount = (await countQueues(ledger)).UNKNOWN;
  const lastPageStart = Math.max(0, unknownCount - QUEUE_PAGE - 1);
  const beforeLast = await ledger.db.operation.findFirst({
    select: { id: true, updatedAt: true },
    where: { phase: "UNKNOWN" },
    orderBy: [{ updatedAt: "asc" }, { id: "asc" }],
    skip: lastPageStart,
  });
  if (!oldest[0] || !middle?.runId || !middle.agentId)
    throw new Error("the benchmark database needs a large seeded ledger (npm run seed:large)");
  return {
    ledger: oldest[0].id,
    ledgerDepth: Math.max(0, total - LEDGER_PAGE - 11),
    unknowns: beforeLast ? `${beforeLast.updatedAt.getTime()}-${beforeLast.id}` : null,
    unknownsDepth: beforeLast ? lastPageStart + 1 : 0,
    tool: middle.tool,
    runId: middle.runId,
    agentId: middle.agentId,
  };
}

const DAY_MS = 86_400_000;

function ledgerCase(
  name: string,
  title: string,
  filter: OperationFilter & { age?: string },
  cursor?: string,
): ConsoleCase {
  const { age, ...rest } = filter;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...rest, ...(age ? { age } : {}) }))
    if (typeof value === "string") params.set(key, value);
  if (cursor) params.set("cursor", cursor);
  params.set("limit", String(LEDGER_PAGE));
  return {
    name,
    title,
    path: `/api/console/operations?${params.toString()}`,
    run: (ledger, now) =>
      listOperations(
        ledger,
        { ...rest, ...(age ? { createdBefore: new Date(now.getTime() - 7 * DAY_MS) } : {}) },
        { cursor, limit: LEDGER_PAGE },
        now,
      ),
  };
}

/** Every read the issue names; the age filter is the console's "over 7 days ago". */
export function consoleCases(deep: DeepCursors): ConsoleCase[] {
  return [
    ledgerCase("first-page", "ledger, newest page", {}),
    ledgerCase(
      "deep-page",
      `ledger, a page ${deep.ledgerDepth.toLocaleString("en")} rows deep by cursor`,
      {},
      deep.ledger,
    ),
    ledgerCase("filter-phase", "ledger filtered by phase (UNKNOWN)", { phase: "UNKNOWN" }),
    ledgerCase("filter-tool", `ledger filtered by tool (${deep.tool})`, { tool: deep.tool }),
    ledgerCase("filter-effect", "ledger filtered by effect class (NON_RETRYABLE)", { effect: "NON_RETRYABLE" }),
    ledgerCase("filter-agent", `ledger filtered by agent (${deep.agentId})`, { agentId: deep.agentId }),
    ledgerCase("filter-run", `ledger filtered by run (${deep.runId})`, { runId: deep.runId }),
    ledgerCase("filter-age", "ledger filtered by age (over 7 days ago)", { age: "7d" }),
    {
      name: "unknowns-first",
      title: "Unknowns queue, longest waiting page",
      path: `/api/console/queue?phase=UNKNOWN&limit=${QUEUE_PAGE}`,
      run: (ledger, now) => listQueue(ledger, "UNKNOWN", { limit: QUEUE_PAGE }, now),
    },
    {
      name: "unknowns-last",
      title: `Unknowns queue, last page (${deep.unknownsDepth.toLocaleString("en")} rows deep)`,
      path: `/api/console/queue?phase=UNKNOWN&limit=${QUEUE_PAGE}${deep.unknowns ? `&cursor=${deep.unknowns}` : ""}`,
      run: (ledger, now) =>
        listQueue(ledger, "UNKNOWN", { cursor: deep.unknowns ?? undefined, limit: QUEUE_PAGE }, now),
    },
    {
      name: "nav-counts",
      title: "navigation counts (Unknowns, Approvals)",
      path: "/api/console/counts",
      run: (ledger) => countQueues(ledger),
    },
  ];
}
