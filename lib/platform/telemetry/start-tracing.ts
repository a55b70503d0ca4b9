// Starts tracing when the environment configures it (tracing-config.ts), from instrumentation.ts before the server
// serves, and flushes it when the server drains (scripts/next-server.mjs). The SDK is imported here only then: an
// unconfigured server loads none of it, and every span helper (spans.ts) runs its work bare (decision 028).
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { tracingConfig } from "./tracing-config";

interface Running {
  shutdown(): Promise<void>;
}

/** On globalThis: a production build may bundle this module twice (the start-up code and a route). */
const state = globalThis as unknown as { opledgerTracing?: Running | null };

/** The hook scripts/next-server.mjs calls when it drains: the spans still in the batch are exported before exit. */
export const TRACING_HOOK = Symbol.for("opledger.tracing");

/** Whether spans are being recorded. False until startTracing found tracing configured. */
export function tracingOn(): boolean {
  return state.opledgerTracing != null;
}

/**
 * Starts the SDK if the environment configures tracing (true), or does nothing (false). Throws a sentence naming a bad
 * variable. `processors` replace the exporters (tests).
 */
export async function startTracing(
  env: Readonly<Record<string, string | undefined>> = process.env,
  processors?: SpanProcessor[],
): Promise<boolean> {
  if (state.opledgerTracing) return true;
  const config = tracingConfig(env);
  if (!config) return false;
  const { startSdk } = await import("./tracing-sdk");
  state.opledgerTracing = startSdk(config, processors);
  (globalThis as Record<symbol, unknown>)[TRACING_HOOK] = { shutdown: stopTracing };
  return true;
}

/** Exports the spans still held, then stops tracing. */
export async function stopTracing(): Promise<void> {
  const running = state.opledgerTracing;
  state.opledgerTracing = null;
  await running?.shutdown();
}
