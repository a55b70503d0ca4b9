// The console's reads at scale, as the benchmark runs them: the ledger's pages and filters, the Unknowns queue and the
// navigation counts.
import type { Ledger } from "@/lib/ledger/ledger";
import { countQueues, listOperations, listQueue, type OperationFilter } from "@/lib/ledger/reads/operations";
import { searchOperations } from "@/lib/ledger/reads/search";

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
  /** Its own p95 target, when not the console's 50 ms (the search box's is 100 ms, issue #18). */
  p95LimitMs?: number;
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
  /** What a person types into the search box, taken from one operation in the middle of the ledger. */
  search: { id: string; idempotencyKey: string; providerId: string; customer: string };
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
    select: { id: true, tool: true, runId: true, agentId: true, idempotencyKey: true, argsJson: true },
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
  const provided = await ledger.db.operation.findFirst({
    select: { providerId: true },
    where: { providerId: { not: null } },
    orderBy: { id: "asc" },
    skip: Math.floor(total / 3),
  });
  const customer = middle ? customerOf(middle.argsJson) : null;
  if (!oldest[0] || !middle?.runId || !middle.agentId || !provided?.providerId || !customer)
    throw new Error("the benchmark database needs a large seeded ledger (npm run seed:large)");
  return {
    ledger: oldest[0].id,
    ledgerDepth: Math.max(0, total - LEDGER_PAGE - 11),
    unknowns: beforeLast ? `${beforeLast.updatedAt.getTime()}-${beforeLast.id}` : null,
    unknownsDepth: beforeLast ? lastPageStart + 1 : 0,
    tool: middle.tool,
    runId: middle.runId,
    agentId: middle.agentId,
    search: { id: middle.id, idempotencyKey: middle.idempotencyKey, providerId: provided.providerId, customer },
  };
}

/** The seed's customer id in an operation's arguments (`{ synthetic, customer }`, about 100 operations each). */
function customerOf(argsJson: string): string | null {
  const args = JSON.parse(argsJson) as { customer?: unknown };
  return typeof args.customer === "string" ? args.customer : null;
}

/** The search box's p95 target at 1,000,000 operations (issue #18). */
const SEARCH_P95_LIMIT_MS = 100;

function searchCase(name: string, title: string, q: string): ConsoleCase {
  return {
    name,
    title,
    path: `/api/console/search?${new URLSearchParams({ q, limit: String(LEDGER_PAGE) }).toString()}`,
    run: (ledger, now) => searchOperations(ledger, { q, limit: LEDGER_PAGE }, now),
    p95LimitMs: SEARCH_P95_LIMIT_MS,
  };
}

/** The search box: each kind of text, a value many operations share, and a miss. */
function searchCases(deep: DeepCursors): ConsoleCase[] {
  const s = deep.search;
  return [
    searchCase("search-id", "search: an operation id", s.id),
    searchCase("search-key", "search: an idempotency key", s.idempotencyKey),
    searchCase("search-provider", "search: a provider id", s.providerId),
    searchCase("search-run", `search: a run id (${deep.runId}, 50 operations)`, deep.runId),
    searchCase(
      "search-customer",
      `search: a customer id in the arguments (${s.customer}, ~100 operations)`,
      s.customer,
    ),
    searchCase("search-miss", "search: a value no operation has", "cus_nobody_has_this"),
  ];
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
    ...searchCases(deep),
  ];
}
