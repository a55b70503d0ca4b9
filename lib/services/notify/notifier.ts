// The notifier of a server process: reads the audit log into webhook events, scans for aged unknowns and retry spikes,
// and sends what is due. Several instances may run on one database: the cursor and the leases keep them apart.
import type { Ledger } from "@/lib/ledger/ledger";
import { newId } from "@/lib/ledger/ids";
import { readAudit } from "./audit-reader";
import { deliverDue, type DeliveryOptions } from "./delivery";
import { subscribers } from "./enqueue";
import { pruneDeliveryLog } from "./retention";
import { scanAgedUnknowns, scanRetrySpikes } from "./scans";

/** How often the delivery log's old deliveries are pruned. */
const PRUNE_INTERVAL_MS = 3_600_000;

export interface NotifierOptions extends DeliveryOptions {
  /** How often the audit log is read and due deliveries are sent (default 1 s). */
  intervalMs?: number;
  /** How often the scans run (default 30 s). */
  scanIntervalMs?: number;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One tick: the audit log, the scans and the log's pruning when due, then the deliveries. Each part's failure is
 * logged, not thrown.
 */
export async function notifyOnce(
  ledger: Ledger,
  now: () => Date,
  due: { scan: boolean; prune: boolean },
  options: DeliveryOptions,
): Promise<void> {
  try {
    await readAudit(ledger, now());
  } catch (error) {
    console.error("opledger: reading the audit log for webhooks failed:", message(error));
  }
  if (due.scan) {
    try {
      const subs = await subscribers(ledger);
      await scanAgedUnknowns(ledger, now(), subs);
      await scanRetrySpikes(ledger, now(), subs);
    } catch (error) {
      console.error("opledger: the webhook scans failed:", message(error));
    }
  }
  if (due.prune) {
    try {
      await pruneDeliveryLog(ledger, now());
    } catch (error) {
      console.error("opledger: pruning the webhook delivery log failed:", message(error));
    }
  }
  try {
    const report = await deliverDue(ledger, now, options);
    if (report.failed > 0)
      console.log(`opledger: ${report.failed} webhook delivery(ies) given up (see the delivery log)`);
  } catch (error) {
    console.error("opledger: sending webhooks failed:", message(error));
  }
}

/** Starts the notifier; the function returned stops it. */
export function startNotifier(ledger: Ledger, options: NotifierOptions = {}): () => void {
  const { intervalMs = 1000, scanIntervalMs = 30_000, ...delivery } = options;
  const owner = delivery.owner ?? `notifier-${newId()}`;
  let running = false;
  let lastScan = 0;
  let lastPrune = 0;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    const scan = Date.now() - lastScan >= scanIntervalMs;
    if (scan) lastScan = Date.now();
    const prune = Date.now() - lastPrune >= PRUNE_INTERVAL_MS;
    if (prune) lastPrune = Date.now();
    void notifyOnce(ledger, () => new Date(), { scan, prune }, { ...delivery, owner }).finally(() => {
      running = false;
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
