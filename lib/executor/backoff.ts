// Backoff waiting between attempts; a wait is cut short when the caller aborts or the lease is lost.
import type { LeaseKeeper } from "./lease-keeper";
import type { ToolRun } from "./run-options";
import { inExecutorSpan } from "./tracing";

/** How long to wait when the gate or a refusal says "wait" but not for how long. */
export const DEFAULT_WAIT_MS = 1000;

/** Sleeps, ending early when the caller aborts or the lease is lost; the loop then looks at why. */
export function pause(run: ToolRun, ms: number, keeper: LeaseKeeper): Promise<void> {
  const signal = run.signal ? AbortSignal.any([run.signal, keeper.signal]) : keeper.signal;
  // The wait is a span of its own, so a trace shows it as wait.
  return inExecutorSpan("opledger.backoff", { "opledger.backoff_ms": ms }, async () => {
    try {
      await run.sleep(ms, signal);
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  });
}
