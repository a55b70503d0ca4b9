// Reads for the API and the console: one operation with its history, and keyset-paginated lists newest first.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Operation, Prisma } from "@/lib/platform/generated/prisma/client";
import type { EffectClass, Phase } from "@/lib/retry-gate/types";
import { encodeTime } from "ulid";
import { LedgerError } from "../errors";
import { loadContext } from "./operation-context";
import { decisionInRun } from "../runs/run-decision";

import { attemptView, auditView, operationView, type OperationView } from "./operation-view";
import type * as wire from "@/lib/platform/wire/answers";

export type OperationDetail = wire.OperationDetail;

/**
 * One operation with its history. `plannedByKeyId`, when given (an agent key's read), limits it to that key's own
 * operations: another key's is not found, exactly as a missing one (docs/authority.md#own-operations).
 */
export async function getOperation(
  ledger: Ledger,
  id: string,
  now: Date,
  plannedByKeyId: string | null = null,
): Promise<OperationDetail> {
  const { op, contract, dependency } = await loadContext(ledger.store, id);
  if (plannedByKeyId !== null && op.plannedByKeyId !== plannedByKeyId) {
    throw new LedgerError("not_found", `There is no operation ${id}.`);
  }
  const [attempts, audit, replays, repeated, decision] = await Promise.all([
    ledger.db.attempt.findMany({ where: { operationId: id }, orderBy: { number: "asc" } }),
    ledger.db.auditEvent.findMany({ where: { subjectType: "operation", subjectId: id }, orderBy: { id: "asc" } }),
    ledger.db.operation.findMany({ select: { id: true }, where: { replayOf: id }, orderBy: { id: "asc" } }),
    op.repeatOf
      ? ledger.db.operation.findUnique({
          select: { id: true, phase: true, updatedAt: true },
          where: { id: op.repeatOf },
        })
      : null,
    decisionInRun(ledger, op, contract, dependency, now),
  ]);
  return {
    ...operationView(op, contract, dependency, now),
    decision,
    attempts: attempts.map(attemptView),
    audit: audit.map(auditView),
    replays: replays.map((r) => r.id),
    // The earlier call ended (its phase's time) before its answer was delivered and this one was made.
    repeated: repeated
      ? { id: repeated.id, phase: repeated.phase as Phase, at: repeated.updatedAt.toISOString() }
      : null,
  };
}

export interface OperationFilter {
  phase?: Phase;
  tool?: string;
  effect?: EffectClass;
  runId?: string;
  agentId?: string;
  /** Only the operations this API key planned (an agent key's reads). */
  plannedByKeyId?: string;
  /** Only operations created before this time (the console's "older than" age filter). */
  createdBefore?: Date;
  /** Only operations created at or after this time (a bulk action's window). */
  createdAfter?: Date;
}

export type Page<T> = wire.Page<T>;

export const MAX_PAGE = 200;

/**
 * How much later than its createdAt an operation's id may have been minted. Ids are ULIDs of the wall clock when the
 * ledger wrote the row and createdAt is the request's clock, so in production they differ by the request's duration;
 * the demo backdates createdAt by up to an hour. Rows minted later than this after their createdAt are missed by the
 * age filter, which in exchange is a range on the primary key instead of a scan over every newer row.
 */
export const ID_MINTED_WITHIN_MS = 60 * 60_000;

/** Every ULID minted before `time` sorts before this string (the 10-character time prefix of `time`). */
function idsMintedBefore(time: Date): string {
  return encodeTime(Math.max(0, time.getTime()), 10);
}

/** The rows a filter matches, as a Prisma condition: the ledger's lists and a bulk action's selection. */
export function operationWhere(filter: OperationFilter): Prisma.OperationWhereInput {
  const { createdBefore, createdAfter } = filter;
  return {
    ...(filter.phase ? { phase: filter.phase } : {}),
    ...(filter.tool ? { tool: filter.tool } : {}),
    ...(filter.effect ? { effect: filter.effect } : {}),
    ...(filter.runId ? { runId: filter.runId } : {}),
    ...(filter.agentId ? { agentId: filter.agentId } : {}),
    ...(filter.plannedByKeyId ? { plannedByKeyId: filter.plannedByKeyId } : {}),
    ...(createdBefore || createdAfter
      ? {
          createdAt: {
            ...(createdBefore ? { lt: createdBefore } : {}),
            ...(createdAfter ? { gte: createdAfter } : {}),
          },
        }
      : {}),
  };
}

/** The id range of a page: after (or before) the cursor, and, with an age filter, only ids minted early enough. */
function idRange(
  filter: OperationFilter,
  cursor: string | undefined,
  newest: boolean,
): Prisma.StringFilter | undefined {
  const bounds: string[] = [];
  if (filter.createdBefore)
    bounds.push(idsMintedBefore(new Date(filter.createdBefore.getTime() + ID_MINTED_WITHIN_MS)));
  if (cursor && newest) bounds.push(cursor);
  const lt = bounds.sort()[0];
  const gt = cursor && !newest ? cursor : undefined;
  if (lt === undefined && gt === undefined) return undefined;
  return { ...(lt === undefined ? {} : { lt }), ...(gt === undefined ? {} : { gt }) };
}

type OperationRecord = Operation;

/** Rows as views: each row's contract version and its dependency's breaker, loaded once per page. */
export async function viewsOf(ledger: Ledger, rows: OperationRecord[], now: Date): Promise<OperationView[]> {
  if (rows.length === 0) return [];
  const versions = [
    ...new Map(
      rows.map((r) => [`${r.tool}@${r.contractVersion}`, { tool: r.tool, version: r.contractVersion }]),
    ).values(),
  ];
  const contracts = await ledger.db.contractVersion.findMany({ where: { OR: versions } });
  const dependencyNames = [...new Set(contracts.map((c) => c.dependency).filter((d): d is string => d !== null))];
  const dependencies = dependencyNames.length
    ? await ledger.db.dependency.findMany({ where: { name: { in: dependencyNames } } })
    : [];
  const contractOf = new Map(contracts.map((c) => [`${c.tool}@${c.version}`, c]));
  const dependencyOf = new Map(dependencies.map((d) => [d.name, d]));
  return rows.flatMap((op) => {
    const contract = contractOf.get(`${op.tool}@${op.contractVersion}`);
    if (!contract) return [];
    return [
      operationView(op, contract, contract.dependency ? (dependencyOf.get(contract.dependency) ?? null) : null, now),
    ];
  });
}

/** Newest first (ids are time-sortable ULIDs); the cursor is the last id of the previous page. */
export async function listOperations(
  ledger: Ledger,
  filter: OperationFilter,
  page: { cursor?: string; limit: number; order?: "newest" | "oldest" },
  now: Date,
): Promise<Page<OperationView>> {
  const limit = Math.min(Math.max(page.limit, 1), MAX_PAGE);
  const newest = (page.order ?? "newest") === "newest";
  const id = idRange(filter, page.cursor, newest);
  const rows = await ledger.db.operation.findMany({
    where: { ...operationWhere(filter), ...(id ? { id } : {}) },
    orderBy: { id: newest ? "desc" : "asc" },
    take: limit + 1,
  });
  const items = rows.slice(0, limit);
  return {
    items: await viewsOf(ledger, items, now),
    nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null,
  };
}

/** The two phases a person works through as queues (Unknowns, Approvals). */
export const QUEUE_PHASES = ["UNKNOWN", "AWAITING_APPROVAL"] as const satisfies readonly Phase[];
export type QueuePhase = (typeof QUEUE_PHASES)[number];

/**
 * A queue's cursor: the last row's sort time (milliseconds) and id, so rows with the same millisecond keep their order.
 */
export const QUEUE_CURSOR = /^(\d{1,15})-([0-9A-Za-z]{1,64})$/;

/**
 * What each queue is sorted by: Unknowns longest waiting first (the time the operation entered its phase, its last
 * change); Approvals soonest to expire first, so nobody's request runs out unseen at the bottom of the list.
 */
const QUEUE_ORDER = { UNKNOWN: "updatedAt", AWAITING_APPROVAL: "approvalExpiresAt" } as const satisfies Record<
  QueuePhase,
  keyof OperationRecord
>;

/**
 * One page of a queue in its order, then by id. A keyset on (phase, time, id), which one index serves, so the
 * thousandth page costs what the first does.
 */
export async function listQueue(
  ledger: Ledger,
  phase: QueuePhase,
  page: { cursor?: string; limit: number },
  now: Date,
): Promise<Page<OperationView>> {
  const limit = Math.min(Math.max(page.limit, 1), MAX_PAGE);
  const match = page.cursor ? QUEUE_CURSOR.exec(page.cursor) : null;
  if (page.cursor && !match) throw new Error(`not a queue cursor: ${page.cursor}`);
  const key = QUEUE_ORDER[phase];
  const after = match ? { time: new Date(Number(match[1])), id: match[2]! } : null;
  const rows = await ledger.db.operation.findMany({
    where: {
      phase,
      // The redundant `gte` lets both engines seek the index to the cursor instead of filtering from the queue's start.
      ...(after ? { [key]: { gte: after.time }, OR: [{ [key]: { gt: after.time } }, { id: { gt: after.id } }] } : {}),
    },
    orderBy: [{ [key]: "asc" }, { id: "asc" }],
    take: limit + 1,
  });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: await viewsOf(ledger, items, now),
    nextCursor: rows.length > limit && last ? `${last[key]?.getTime() ?? 0}-${last.id}` : null,
  };
}

/** Every phase's count: a scan of the whole table, for the metrics export, not for anything polled per person. */
export async function countByPhase(ledger: Ledger): Promise<Record<string, number>> {
  const groups = await ledger.db.operation.groupBy({ by: ["phase"], _count: { _all: true } });
  return Object.fromEntries(groups.map((g) => [g.phase, g._count._all]));
}

/** How many operations wait in each queue: counted from the (phase, ...) index, touching only those phases' entries. */
export async function countQueues(ledger: Ledger): Promise<Record<QueuePhase, number>> {
  const groups = await ledger.db.operation.groupBy({
    by: ["phase"],
    where: { phase: { in: [...QUEUE_PHASES] } },
    _count: { _all: true },
  });
  const count = (phase: QueuePhase): number => groups.find((g) => g.phase === phase)?._count._all ?? 0;
  return { UNKNOWN: count("UNKNOWN"), AWAITING_APPROVAL: count("AWAITING_APPROVAL") };
}
