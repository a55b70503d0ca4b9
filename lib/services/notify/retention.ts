// The delivery log is kept for 30 days: older deliveries that are over (delivered, or given up by the retry gate) are
// deleted, a webhook at a time through its (webhook, createdAt) index. Pending ones are never deleted. The scans only
// look at what the log still covers (scans.ts), so nothing deleted is announced again.
import type { Ledger } from "@/lib/ledger/ledger";
import { withWriteRetry } from "@/lib/ledger/write-retry";

export const DELIVERY_LOG_RETENTION_MS = 30 * 24 * 3_600_000;
/** Rows per delete: short write locks, and within the engines' bound-parameter limits. */
const DELETE_CHUNK = 500;

async function pruneWebhookLog(ledger: Ledger, webhook: string, before: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await ledger.db.webhookDelivery.findMany({
      where: { webhook, createdAt: { lt: before }, status: { in: ["delivered", "failed"] } },
      select: { id: true },
      take: DELETE_CHUNK,
    });
    if (rows.length === 0) return deleted;
    const { count } = await withWriteRetry(() =>
      ledger.db.webhookDelivery.deleteMany({
        // Checked again: a delivery is deleted only if it is still over.
        where: {
          id: { in: rows.map((r) => r.id) },
          createdAt: { lt: before },
          status: { in: ["delivered", "failed"] },
        },
      }),
    );
    deleted += count;
  }
}

/** Deletes the deliveries over and older than the retention; the count deleted. */
export async function pruneDeliveryLog(ledger: Ledger, now: Date): Promise<number> {
  const before = new Date(now.getTime() - DELIVERY_LOG_RETENTION_MS);
  let deleted = 0;
  // Each webhook name in the log (a deleted webhook's deliveries too), one index seek per name.
  for (let last = ""; ;) {
    const next = await ledger.db.webhookDelivery.findFirst({
      where: { webhook: { gt: last } },
      orderBy: { webhook: "asc" },
      select: { webhook: true },
    });
    if (!next) break;
    last = next.webhook;
    deleted += await pruneWebhookLog(ledger, last, before);
  }
  return deleted;
}
