// How far the audit log has been turned into webhook events: one row, advanced only from the value it was read at.
import type { Prisma } from "@/lib/platform/generated/prisma/client";

export const NOTIFICATIONS_CURSOR = "notifications";

type Tx = Prisma.TransactionClient;

/** The cursor, created at the chain's head the first time: events from before notifications existed are not sent. */
export async function ensureNotificationCursor(tx: Tx): Promise<number> {
  const cursor = await tx.auditCursor.findUnique({ where: { name: NOTIFICATIONS_CURSOR } });
  if (cursor) return cursor.seq;
  const head = await tx.auditChain.findUnique({ where: { id: 1 } });
  const seq = head?.seq ?? 0;
  await tx.auditCursor.upsert({
    where: { name: NOTIFICATIONS_CURSOR },
    create: { name: NOTIFICATIONS_CURSOR, seq },
    update: {},
  });
  return seq;
}

/**
 * Moves the cursor from `from` to `to`, or reports that another reader moved it first (then this reader's work is
 * rolled back with its transaction). First in the transaction, so on PostgreSQL the row lock orders two readers.
 */
export async function advanceCursor(tx: Tx, from: number, to: number): Promise<boolean> {
  const moved = await tx.auditCursor.updateMany({
    where: { name: NOTIFICATIONS_CURSOR, seq: from },
    data: { seq: to },
  });
  return moved.count === 1;
}
