// Whether opledger traces, read from OpenTelemetry's standard variables (docs/observability.md): tracing starts only
// when an OTLP endpoint is named (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT) or
// OTEL_TRACES_EXPORTER asks for an exporter; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none keep it off. The
// SDK reads the rest itself (the endpoint, OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER, OTEL_BSP_*, ...).

export const TRACE_PROTOCOLS = ["http/protobuf", "http/json"] as const;
export type TraceProtocol = (typeof TRACE_PROTOCOLS)[number];
export const TRACE_EXPORTERS = ["otlp", "console"] as const;
export type TraceExporter = (typeof TRACE_EXPORTERS)[number];

export interface TracingConfig {
  exporters: TraceExporter[];
  /** How the OTLP exporter sends spans (only read when `exporters` has otlp). */
  protocol: TraceProtocol;
  /** OTEL_SERVICE_NAME, else "opledger". */
  serviceName: string;
}

type Environment = Readonly<Record<string, string | undefined>>;

const text = (env: Environment, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value ? value : undefined;
};

function exportersOf(env: Environment): TraceExporter[] | null {
  const named = text(env, "OTEL_TRACES_EXPORTER")
    ?.split(",")
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (!named || named.length === 0) {
    const endpoint = text(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? text(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
    return endpoint ? ["otlp"] : null;
  }
  if (named.includes("none")) return null;
  for (const name of named) {
    if (!(TRACE_EXPORTERS as readonly string[]).includes(name)) {
      throw new Error(
        `OTEL_TRACES_EXPORTER names ${name}, which opledger does not export to: use otlp (to a collector, Jaeger, ` +
          `Tempo, ...), console or none.`,
      );
    }
  }
  return [...new Set(named)] as TraceExporter[];
}

function protocolOf(env: Environment): TraceProtocol {
  const name = text(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = text(env, name) ?? "http/protobuf";
  if (!(TRACE_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new Error(
      `${name} is ${protocol}; opledger sends OTLP over HTTP only: set http/protobuf (the default) or http/json, and ` +
        `point the endpoint at the collector's HTTP port (4318).`,
    );
  }
  return protocol as TraceProtocol;
}

/** The tracing the environment asks for; null when tracing stays off. Throws a sentence naming a bad variable. */
export function tracingConfig(env: Environment): TracingConfig | null {
  if (text(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return null;
  const exporters = exportersOf(env);
  if (!exporters) return null;
  return {
    exporters,
    protocol: exporters.includes("otlp") ? protocolOf(env) : "http/protobuf",
    serviceName: text(env, "OTEL_SERVICE_NAME") ?? "opledger",
  };
}
