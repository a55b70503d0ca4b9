// Turns the audit log into webhook events. Every state change is audited in its own transaction, and seq is assigned
// under the chain head's lock (the write lock on SQLite, the head row's lock on PostgreSQL, held to COMMIT), so the
// events visible after the cursor are exactly the next ones in commit order: reading in seq order skips nothing.
import type { AuditEvent } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import { withWriteRetry } from "@/lib/ledger/write-retry";
import { advanceCursor, ensureNotificationCursor } from "./audit-cursor";
import { bulkData, dependencyData, operationData, runData, toolChangedData, type WebhookEvent } from "./event-payload";
import { eventOfAudit, type WebhookEventType } from "./event-types";
import { deliveryRows, subscribers, type QueuedEvent } from "./enqueue";

export const AUDIT_BATCH = 200;

async function dataFor(
  ledger: Ledger,
  row: AuditEvent,
  type: WebhookEventType,
  now: Date,
): Promise<WebhookEvent["data"]> {
  switch (type) {
    case "operation.unknown":
    case "approval.requested":
    case "approval.expired":
      return operationData(ledger, row.subjectId, now);
    case "breaker.opened":
    case "breaker.closed":
      return dependencyData(ledger, row.subjectId, now);
    case "bulk.finished":
      return bulkData(row.subjectId, row.data);
    case "run.allowance_exhausted":
      return runData(row.subjectId, row.reason, row.data);
    case "tool.changed":
      return toolChangedData(row.subjectId, row.data);
    case "unknowns.aged":
    case "retries.spike":
      throw new Error(`${type} comes from a scan, not from an audit record`);
    default: {
      const never: never = type;
      return never;
    }
  }
}

export interface ReadReport {
  /** Audit events read past. */
  read: number;
  /** Deliveries queued. */
  queued: number;
  /** Another reader advanced the cursor first; nothing was written by this one. */
  lost: boolean;
}

/**
 * One batch: the events after the cursor, the deliveries for those someone subscribed to, and the cursor moved past
 * them, in one transaction. Two readers never both write a batch: the cursor only moves from the value it was read at.
 */
export async function readAuditOnce(ledger: Ledger, now: Date, batch = AUDIT_BATCH): Promise<ReadReport> {
  const from = await ledger.db.$transaction((tx) => ensureNotificationCursor(tx));
  // The head before the subscribers: an event past it is read even if its webhook appears in between.
  const head = (await ledger.db.auditChain.findUnique({ where: { id: 1 } }))?.seq ?? 0;
  const subs = await subscribers(ledger);
  if (subs.size === 0) return skipTo(ledger, from, head);
  const rows = await ledger.db.auditEvent.findMany({
    where: { seq: { gt: from } },
    orderBy: { seq: "asc" },
    take: batch,
  });
  const last = rows.at(-1)?.seq;
  if (last == null) return { read: 0, queued: 0, lost: false };
  const queued: QueuedEvent[] = [];
  for (const row of rows) {
    const type = eventOfAudit(row);
    if (!type || !subs.has(type)) continue;
    queued.push({
      key: `audit:${row.seq}`,
      event: { type, timestamp: row.createdAt.toISOString(), data: await dataFor(ledger, row, type, now) },
    });
  }
  const deliveries = deliveryRows(queued, subs, now);
  const lost = await withWriteRetry(() =>
    ledger.db.$transaction(async (tx) => {
      if (!(await advanceCursor(tx, from, last))) return true;
      if (deliveries.length > 0) await tx.webhookDelivery.createMany({ data: deliveries });
      return false;
    }),
  );
  return { read: rows.length, queued: lost ? 0 : deliveries.length, lost };
}

/**
 * No webhook subscribes to anything: the cursor moves straight to the head read before the subscribers, reading no
 * event (a busy ledger writes thousands a second). A webhook created later is told what happens from then on.
 */
async function skipTo(ledger: Ledger, from: number, head: number): Promise<ReadReport> {
  if (head <= from) return { read: 0, queued: 0, lost: false };
  const lost = !(await ledger.db.$transaction((tx) => advanceCursor(tx, from, head)));
  return { read: 0, queued: 0, lost };
}

/** Reads batches until the cursor reaches the head (or `maxBatches`). */
export async function readAudit(ledger: Ledger, now: Date, maxBatches = 20): Promise<number> {
  let queued = 0;
  for (let i = 0; i < maxBatches; i++) {
    const report = await readAuditOnce(ledger, now);
    queued += report.queued;
    if (report.read < AUDIT_BATCH || report.lost) break;
  }
  return queued;
}
