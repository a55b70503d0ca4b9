// A preview that was never run keeps its exact set only while it can still run: an hour after it expired, its items
// (up to 10,000 rows each) are deleted. The preview's row and its bulk.previewed audit record, with the counts, stay.
import type { Ledger } from "@/lib/ledger/ledger";
import { withWriteRetry } from "../write-retry";

/** How long after its expiry an unrun preview keeps its items (a person reading the preview dialog late). */
export const PREVIEW_ITEMS_KEPT_MS = 60 * 60_000;
/** Previews whose items go per transaction, so one sweep never holds the write lock for long. */
const PREVIEWS_PER_STEP = 5;

/** Deletes the items of previews never run and expired for longer than PREVIEW_ITEMS_KEPT_MS; the count deleted. */
export async function pruneExpiredPreviews(ledger: Ledger, now: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const previews = await ledger.db.bulkAction.findMany({
      where: {
        status: "previewed",
        previewExpiresAt: { lt: new Date(now.getTime() - PREVIEW_ITEMS_KEPT_MS) },
        items: { some: {} },
      },
      select: { id: true },
      take: PREVIEWS_PER_STEP,
    });
    if (previews.length === 0) return deleted;
    const ids = previews.map((p) => p.id);
    // Only while still unrun: a preview run in between keeps its items (the job works through them).
    const { count } = await withWriteRetry(() =>
      ledger.db.bulkItem.deleteMany({ where: { bulkId: { in: ids }, bulk: { status: "previewed" } } }),
    );
    deleted += count;
  }
}
