// Tracing into memory for tests: the SDK started as the server starts it (lib/platform/telemetry/start-tracing.ts), with the
// SDK's in-memory exporter instead of OTLP; stopTracing puts the API's no-ops back.
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll } from "vitest";
import { startTracing, stopTracing } from "@/lib/platform/telemetry/start-tracing";

export async function startInMemoryTracing(): Promise<InMemorySpanExporter> {
  const exporter = new InMemorySpanExporter();
  await startTracing({ OTEL_TRACES_EXPORTER: "console" }, [new SimpleSpanProcessor(exporter)]);
  return exporter;
}

/**
 * Traces into memory around the tests of the describe block (or file) it is called in: started before them, stopped
 * after. Answers the exporter, to read once the tests run.
 */
export function tracedIntoMemory(): () => InMemorySpanExporter {
  let exporter: InMemorySpanExporter | undefined;
  beforeAll(async () => {
    exporter = await startInMemoryTracing();
  });
  afterAll(() => stopTracing());
  return () => exporter!;
}

/** The one finished span of that name (fails when there is none or several). */
export function only(exporter: InMemorySpanExporter, name: string): ReadableSpan {
  const found = exporter.getFinishedSpans().filter((span) => span.name === name);
  if (found.length !== 1) {
    const names = exporter.getFinishedSpans().map((span) => span.name);
    throw new Error(`${found.length} spans named ${name}; finished: ${names.join(", ")}`);
  }
  return found[0]!;
}

/** The span id of a span's parent, or undefined for a root span. */
export const parentId = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
