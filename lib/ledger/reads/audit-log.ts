// The whole audit log for the console: newest first, keyset-paginated, filtered by subject, actor, action and time.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Prisma } from "@/lib/platform/generated/prisma/client";
import type { AuditSubject } from "@/lib/ledger/audit/append";
import { auditView, type AuditView } from "./operation-view";
import { MAX_PAGE, type Page } from "./operations";

export const AUDIT_SUBJECTS = [
  "operation",
  "contract",
  "dependency",
  "user",
  "api_key",
  "webhook",
  "bulk",
] as const satisfies readonly AuditSubject[];

export interface AuditFilter {
  subjectType?: AuditSubject;
  subjectId?: string;
  /** Matches who acted (by id, or by the label people read), or the person an API key acted for. */
  actorId?: string;
  /** An exact action, or a prefix ending in ".*" such as "contract.*". */
  action?: string;
  /** Only records made at or after this time. */
  since?: Date;
}

function actionWhere(action: string): Prisma.AuditEventWhereInput {
  return action.endsWith(".*") ? { action: { startsWith: action.slice(0, -1) } } : { action };
}

export function auditWhere(filter: AuditFilter): Prisma.AuditEventWhereInput {
  return {
    ...(filter.subjectType ? { subjectType: filter.subjectType } : {}),
    ...(filter.subjectId ? { subjectId: filter.subjectId } : {}),
    ...(filter.actorId
      ? { OR: [{ actorId: filter.actorId }, { onBehalfOf: filter.actorId }, { actorLabel: filter.actorId }] }
      : {}),
    ...(filter.action ? actionWhere(filter.action) : {}),
    ...(filter.since ? { createdAt: { gte: filter.since } } : {}),
  };
}

/**
 * Newest first by id (time-sortable ULIDs, in the order the records were written); the cursor is the last
 * id of the previous page, so a page never shifts when new records arrive.
 */
export async function listAuditEvents(
  ledger: Ledger,
  filter: AuditFilter,
  page: { cursor?: string; limit: number },
): Promise<Page<AuditView>> {
  const limit = Math.min(Math.max(Math.trunc(page.limit), 1), MAX_PAGE);
  const rows = await ledger.db.auditEvent.findMany({
    where: { ...auditWhere(filter), ...(page.cursor ? { id: { lt: page.cursor } } : {}) },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const items = rows.slice(0, limit);
  return { items: items.map(auditView), nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}

/**
 * Actions the ledger writes, offered as suggestions in the filter (free text still works). A static list,
 * because a DISTINCT over millions of audit rows is a full index scan on every page view.
 */
export const KNOWN_AUDIT_ACTIONS = [
  "operation.*",
  "operation.planned",
  "operation.duplicate_rejected",
  "operation.lease_claimed",
  "operation.lease_taken_over",
  "operation.lease_released",
  "operation.authorized",
  "operation.dispatched",
  "operation.confirmed",
  "operation.outcome_unknown",
  "operation.retry_scheduled",
  "operation.approval_requested",
  "operation.approved",
  "operation.rejected",
  "operation.reconciled",
  "operation.failed",
  "operation.stale_fence_rejected",
  "operation.replayed",
  "contract.*",
  "contract.created",
  "contract.updated",
  "dependency.*",
  "dependency.breaker_open",
  "dependency.breaker_half_open",
  "dependency.breaker_closed",
  "dependency.forced_open",
  "dependency.forced_closed",
  "dependency.released",
  "dependency.settings_changed",
  "user.*",
  "api_key.*",
  "webhook.*",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.test_sent",
  "bulk.*",
  "bulk.previewed",
  "bulk.started",
  "bulk.finished",
  "bulk.cancelled",
] as const;
