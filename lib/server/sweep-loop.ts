// Runs the recovery sweep on an interval for the life of the server process.
import type { Db } from "@/lib/db";
import { recoverExpiredLeases } from "@/lib/ledger/sweep";

export function startSweepLoop(client: Db, intervalMs: number): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    recoverExpiredLeases(client, new Date())
      .then((moved) => {
        if (moved > 0) console.log(`opledger: recovery sweep moved ${moved} operation(s) with expired leases to UNKNOWN`);
      })
      .catch((error: unknown) => console.error("opledger: recovery sweep failed:", error instanceof Error ? error.message : error))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
