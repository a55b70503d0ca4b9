// Calls the provider under a deadline, the caller's signal and the lease, and says how the call ended.
import type { Operation } from "./client";
import type { LeaseKeeper } from "./lease-keeper";
import { asProviderResult, type ProviderResult } from "./provider";
import type { ToolRun } from "./run-options";
import { thrownKind, thrownMessage } from "./thrown-error";

export type ProviderCall =
  | { kind: "answered"; result: ProviderResult }
  | { kind: "ambiguous"; error: { kind: string; message: string } }
  | { kind: "lease_lost" };

/** Calls the provider with a deadline; a hung provider that ignores its signal is abandoned all the same. */
export async function callBounded(run: ToolRun, operation: Operation, keeper: LeaseKeeper): Promise<ProviderCall> {
  const controller = new AbortController();
  let cause: "timeout" | "lease_lost" | "caller" | null = null;
  const stop = (why: "timeout" | "lease_lost" | "caller", reason: unknown) => {
    if (controller.signal.aborted) return;
    cause = why;
    controller.abort(reason);
  };
  const timer = setTimeout(
    () =>
      stop("timeout", new DOMException(`provider call timed out after ${run.providerTimeoutMs} ms`, "TimeoutError")),
    run.providerTimeoutMs,
  );
  const onCallerAbort = () => stop("caller", run.signal?.reason);
  run.signal?.addEventListener("abort", onCallerAbort, { once: true });
  if (run.signal?.aborted) onCallerAbort();
  const stopListening = keeper.onLost(() =>
    stop("lease_lost", new DOMException("the lease was taken over by another worker", "AbortError")),
  );
  const aborted = new Promise<{ settled: "aborted" }>((resolve) => {
    if (controller.signal.aborted) resolve({ settled: "aborted" });
    controller.signal.addEventListener("abort", () => resolve({ settled: "aborted" }), { once: true });
  });

  try {
    const settled = await Promise.race([
      Promise.resolve()
        .then(() =>
          run.callProvider({
            idempotencyKey: operation.idempotencyKey,
            attempt: operation.attempt,
            operationId: operation.id,
            signal: controller.signal,
          }),
        )
        .then(
          (value: unknown) => ({ settled: "returned" as const, value }),
          (error: unknown) => ({ settled: "threw" as const, error }),
        ),
      aborted,
    ]);
    if (cause === "lease_lost" || keeper.lost) return { kind: "lease_lost" };
    if (settled.settled === "returned") {
      const result = asProviderResult(settled.value);
      if (result) return { kind: "answered", result };
      return {
        kind: "ambiguous",
        error: { kind: "invalid_provider_result", message: "the provider function returned no { ok } result" },
      };
    }
    if (cause === "timeout") {
      return {
        kind: "ambiguous",
        error: { kind: "timeout", message: `no answer within ${run.providerTimeoutMs} ms` },
      };
    }
    if (cause === "caller") {
      return { kind: "ambiguous", error: { kind: "aborted", message: "the caller aborted the run mid-call" } };
    }
    const error = settled.settled === "threw" ? settled.error : undefined;
    return { kind: "ambiguous", error: { kind: thrownKind(error), message: thrownMessage(error) } };
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener("abort", onCallerAbort);
    stopListening();
  }
}
