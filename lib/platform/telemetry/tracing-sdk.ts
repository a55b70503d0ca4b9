// The OpenTelemetry SDK, wired once tracing-config.ts found tracing configured: imported only then (start-tracing.ts
// loads this file lazily), so a server without tracing never loads it (decision 028). The exporter and the batch
// processor read their own variables (the endpoint, headers, timeout; OTEL_BSP_*), the provider the sampler
// (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG), the resource OTEL_RESOURCE_ATTRIBUTES.
import { context, propagation, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { TraceExporter, TracingConfig } from "./tracing-config";

function exporterFor(name: TraceExporter, config: TracingConfig): SpanExporter {
  if (name === "console") return new ConsoleSpanExporter();
  return config.protocol === "http/json" ? new JsonExporter() : new ProtobufExporter();
}

/**
 * Registers the global tracer provider, context manager (AsyncLocalStorage) and W3C propagator; `processors` replaces
 * the exporters' batch processors (the tests' in-memory exporter). Returns what flushes and stops it.
 */
export function startSdk(config: TracingConfig, processors?: SpanProcessor[]): { shutdown(): Promise<void> } {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: processors ?? config.exporters.map((name) => new BatchSpanProcessor(exporterFor(name, config))),
  });
  provider.register();
  return {
    shutdown: async () => {
      await provider.shutdown();
      // The globals go back to the API's no-ops: tracing can start again (a test's next provider).
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
