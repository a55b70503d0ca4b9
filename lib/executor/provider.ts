// The contract of the provider function runTool calls, and the run-time check of what it hands back.

/** What the provider answered. `ok: false` means a definite error answer from the provider (nothing applied). */
export type ProviderResult = { ok: true; providerId?: string; value?: unknown } | { ok: false; error: ProviderError };

export interface ProviderError {
  kind?: string;
  httpStatus?: number;
  message?: string;
  /** The provider's Retry-After, in milliseconds. */
  retryAfterMs?: number;
}

export interface ProviderCallContext {
  /**
   * Send this to the provider (Idempotency-Key header, client token, ...): every attempt of the operation reuses it.
   */
  idempotencyKey: string;
  attempt: number;
  operationId: string;
  /** Aborted when the call times out, the lease is taken over, or the caller aborts: stop sending. */
  signal: AbortSignal;
}

export type CallProvider = (ctx: ProviderCallContext) => Promise<ProviderResult>;

/** Checks the provider function's answer at run time: a plain-JS caller can return anything. */
export function asProviderResult(value: unknown): ProviderResult | null {
  if (typeof value !== "object" || value === null || !("ok" in value)) return null;
  if (value.ok === true) {
    const providerId = "providerId" in value && typeof value.providerId === "string" ? value.providerId : undefined;
    return { ok: true, providerId, value: "value" in value ? value.value : undefined };
  }
  if (value.ok === false && "error" in value && typeof value.error === "object" && value.error !== null) {
    const e = value.error;
    return {
      ok: false,
      error: {
        kind: "kind" in e && typeof e.kind === "string" ? e.kind : undefined,
        httpStatus: "httpStatus" in e && typeof e.httpStatus === "number" ? e.httpStatus : undefined,
        message: "message" in e && typeof e.message === "string" ? e.message : undefined,
        retryAfterMs: "retryAfterMs" in e && typeof e.retryAfterMs === "number" ? e.retryAfterMs : undefined,
      },
    };
  }
  return null;
}
