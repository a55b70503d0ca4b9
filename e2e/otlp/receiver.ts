// An OTLP/HTTP trace receiver for the e2e run: servers export their spans to POST /v1/traces as JSON
// (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), and the specs read them back by trace id from GET /spans?traceId=.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** One span as it arrived, its attributes flattened to plain values, its ids in hex as OTLP/JSON sends them. */
export interface ReceivedSpan {
  /** The resource's service.name: which server sent it. */
  service: string | null;
  traceId: string;
  spanId: string;
  /** null for a root span. */
  parentSpanId: string | null;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

/** The receiver keeps at most this many spans (the oldest go first): a whole e2e run's fit many times over. */
const KEEP = 200_000;

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
};
type KeyValue = { key: string; value?: AnyValue };

function plain(value: AnyValue | undefined): unknown {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plain);
  if (value.kvlistValue !== undefined) return attributesOf(value.kvlistValue.values);
  return null;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  events?: { name: string; attributes?: KeyValue[] }[];
  links?: { traceId: string; spanId: string }[];
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
}

interface TraceRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/** The spans of one ExportTraceServiceRequest in its JSON encoding. */
export function spansOfRequest(request: TraceRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = attributesOf(resourceSpans.resource?.attributes)["service.name"];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span): ReceivedSpan => ({
        service: typeof service === "string" ? service : null,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ? span.parentSpanId : null,
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
        links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        startTimeUnixNano: String(span.startTimeUnixNano),
        endTimeUnixNano: String(span.endTimeUnixNano),
      })),
    );
  });
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export interface OtlpReceiver {
  url: string;
  close: () => Promise<void>;
}

/** Listens on 127.0.0.1:`port` (0: a free one). Only JSON is read: a protobuf body is refused with 415. */
export async function startOtlpReceiver(port: number): Promise<OtlpReceiver> {
  let spans: ReceivedSpan[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "POST" && url.pathname === "/v1/traces") {
      if (!String(req.headers["content-type"]).startsWith("application/json")) {
        return reply(res, 415, { message: "send OTLP/HTTP as JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json)" });
      }
      spans = spans.concat(spansOfRequest(JSON.parse((await bodyOf(req)).toString("utf8")) as TraceRequest));
      if (spans.length > KEEP) spans = spans.slice(-KEEP);
      return reply(res, 200, {});
    }
    if (req.method === "GET" && url.pathname === "/spans") {
      const traceId = url.searchParams.get("traceId");
      return reply(res, 200, traceId === null ? spans : spans.filter((s) => s.traceId === traceId));
    }
    if (req.method === "GET" && url.pathname === "/health") return reply(res, 200, { spans: spans.length });
    return reply(res, 404, { message: "POST /v1/traces, GET /spans?traceId=, GET /health" });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 400, { message: error instanceof Error ? error.message : String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
