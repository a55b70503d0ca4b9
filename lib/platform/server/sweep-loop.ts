// Runs the recovery sweep, then the auto-reconcile by provider lookup, on an interval for the life of the server
// process.
import type { Ledger } from "@/lib/ledger/ledger";
import { autoReconcile, LookupBackoff } from "@/lib/ledger/commands/auto-reconcile";
import { expireApprovals } from "@/lib/ledger/commands/expire-approvals";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import { LEDGER } from "@/lib/platform/telemetry/attributes";
import { rootSpan } from "@/lib/platform/telemetry/root-span";

/** Lookups per tick: bounded so a long queue of unknowns cannot make one tick run for minutes. */
const AUTO_RECONCILE_PER_TICK = 20;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One tick: expired leases to UNKNOWN and expired approval requests to EXPIRED (the root span `opledger sweep`), then
 * lookups for the UNKNOWN operations whose contract allows them (auto-reconcile's own root span).
 */
export async function sweepOnce(
  ledger: Ledger,
  backoff: LookupBackoff,
  now: () => Date = () => new Date(),
): Promise<void> {
  await rootSpan("opledger sweep", {}, async (span) => {
    try {
      const moved = await recoverExpiredLeases(ledger, now());
      span.setAttribute(LEDGER.sweepLostInFlight, moved);
      if (moved > 0) console.log(`opledger: recovery sweep moved ${moved} operation(s) with expired leases to UNKNOWN`);
    } catch (error) {
      console.error("opledger: recovery sweep failed:", message(error));
    }
    try {
      const expired = await expireApprovals(ledger, now());
      span.setAttribute(LEDGER.sweepApprovalsExpired, expired);
      if (expired > 0) console.log(`opledger: ${expired} approval request(s) expired without a decision (now EXPIRED)`);
    } catch (error) {
      console.error("opledger: approval expiry failed:", message(error));
    }
  });
  try {
    const report = await autoReconcile(ledger, now(), { limit: AUTO_RECONCILE_PER_TICK, backoff });
    const settled = report.applied + report.notApplied;
    if (settled > 0) {
      console.log(
        `opledger: auto-reconcile settled ${settled} UNKNOWN operation(s) by provider lookup ` +
          `(${report.applied} applied, ${report.notApplied} not applied)`,
      );
    }
  } catch (error) {
    console.error("opledger: auto-reconcile failed:", message(error));
  }
}

export function startSweepLoop(ledger: Ledger, intervalMs: number): () => void {
  let running = false;
  const backoff = new LookupBackoff();
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void sweepOnce(ledger, backoff).finally(() => {
      running = false;
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
