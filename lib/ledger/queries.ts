// Reads for the API and the console: one operation with its history, and keyset-paginated lists newest first.
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { EffectClass, Phase } from "@/lib/retry-gate/types";
import { loadContext } from "./operation-store";
import { attemptView, auditView, operationView, type AttemptView, type AuditView, type OperationView } from "./operation-view";

export interface OperationDetail extends OperationView {
  attempts: AttemptView[];
  audit: AuditView[];
}

export async function getOperation(client: Db, id: string, now: Date): Promise<OperationDetail> {
  const { op, contract, dependency } = await loadContext(client, id);
  const [attempts, audit] = await Promise.all([
    client.attempt.findMany({ where: { operationId: id }, orderBy: { number: "asc" } }),
    client.auditEvent.findMany({ where: { subjectType: "operation", subjectId: id }, orderBy: { id: "asc" } }),
  ]);
  return { ...operationView(op, contract, dependency, now), attempts: attempts.map(attemptView), audit: audit.map(auditView) };
}

export interface OperationFilter {
  phase?: Phase;
  tool?: string;
  effect?: EffectClass;
  runId?: string;
  agentId?: string;
  /** Only operations created before this time (the console's "older than" age filter). */
  createdBefore?: Date;
  /** Only operations created after this time. */
  createdAfter?: Date;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const MAX_PAGE = 200;

function whereOf(filter: OperationFilter): Prisma.OperationWhereInput {
  return {
    ...(filter.phase ? { phase: filter.phase } : {}),
    ...(filter.tool ? { tool: filter.tool } : {}),
    ...(filter.effect ? { effect: filter.effect } : {}),
    ...(filter.runId ? { runId: filter.runId } : {}),
    ...(filter.agentId ? { agentId: filter.agentId } : {}),
    ...(filter.createdBefore || filter.createdAfter
      ? { createdAt: { ...(filter.createdBefore ? { lt: filter.createdBefore } : {}), ...(filter.createdAfter ? { gt: filter.createdAfter } : {}) } }
      : {}),
  };
}

/** Newest first (ids are time-sortable ULIDs); the cursor is the last id of the previous page. */
export async function listOperations(
  client: Db,
  filter: OperationFilter,
  page: { cursor?: string; limit: number; order?: "newest" | "oldest" },
  now: Date,
): Promise<Page<OperationView>> {
  const limit = Math.min(Math.max(page.limit, 1), MAX_PAGE);
  const newest = (page.order ?? "newest") === "newest";
  const rows = await client.operation.findMany({
    where: { ...whereOf(filter), ...(page.cursor ? { id: newest ? { lt: page.cursor } : { gt: page.cursor } } : {}) },
    orderBy: { id: newest ? "desc" : "asc" },
    take: limit + 1,
  });
  const items = rows.slice(0, limit);
  const tools = [...new Set(items.map((r) => `${r.tool}@${r.contractVersion}`))];
  const contracts = await client.contractVersion.findMany({
    where: { OR: tools.map((t) => ({ tool: t.slice(0, t.lastIndexOf("@")), version: Number(t.slice(t.lastIndexOf("@") + 1)) })) },
  });
  const dependencyNames = [...new Set(contracts.map((c) => c.dependency).filter((d): d is string => d !== null))];
  const dependencies = dependencyNames.length
    ? await client.dependency.findMany({ where: { name: { in: dependencyNames } } })
    : [];
  const contractOf = new Map(contracts.map((c) => [`${c.tool}@${c.version}`, c]));
  const dependencyOf = new Map(dependencies.map((d) => [d.name, d]));
  return {
    items: items.flatMap((op) => {
      const contract = contractOf.get(`${op.tool}@${op.contractVersion}`);
      if (!contract) return [];
      return [operationView(op, contract, contract.dependency ? (dependencyOf.get(contract.dependency) ?? null) : null, now)];
    }),
    nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null,
  };
}

export async function countByPhase(client: Db): Promise<Record<string, number>> {
  const groups = await client.operation.groupBy({ by: ["phase"], _count: { _all: true } });
  return Object.fromEntries(groups.map((g) => [g.phase, g._count._all]));
}
