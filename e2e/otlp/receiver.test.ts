// The e2e run's OTLP receiver: it reads OTLP/HTTP JSON (plain or gzipped) as the OTLP specification encodes it, gives
// the spans back by trace id, and refuses protobuf, which the e2e servers are configured not to send.
import { gzipSync } from "node:zlib";
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./receiver";

const TRACE = "5b8efff798038103d269b633813fc60c";
const OTHER_TRACE = "0af7651916cd43dd8448eb211c80319c";

/** An ExportTraceServiceRequest as the OTLP specification's JSON example writes one: hex ids, string nanoseconds. */
function request(traceId: string, spans: { spanId: string; parentSpanId?: string; name: string }[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "opledger" } }] },
        scopeSpans: [
          {
            scope: { name: "opledger" },
            spans: spans.map((s) => ({
              traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? "",
              name: s.name,
              kind: 2,
              startTimeUnixNano: "1544712660000000000",
              endTimeUnixNano: "1544712661000000000",
              attributes: [
                { key: "mcp.method.name", value: { stringValue: "tools/call" } },
                { key: "opledger.attempt", value: { intValue: "2" } },
                { key: "opledger.retry", value: { boolValue: true } },
                { key: "opledger.tags", value: { arrayValue: { values: [{ stringValue: "a" }] } } },
              ],
              events: [{ name: "gate.decision", attributes: [{ key: "action", value: { stringValue: "proceed" } }] }],
            })),
          },
        ],
      },
    ],
  };
}

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver(0);
});
afterEach(async () => {
  await receiver.close();
});

const post = (body: Uint8Array | string, headers: Record<string, string>) =>
  fetch(`${receiver.url}/v1/traces`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : new Uint8Array(body),
  });

async function spans(traceId: string): Promise<ReceivedSpan[]> {
  return (await (await fetch(`${receiver.url}/spans?traceId=${traceId}`)).json()) as ReceivedSpan[];
}

describe("the OTLP receiver", () => {
  it("keeps the spans of JSON exports, plain or gzipped, and gives one trace's back with flattened attributes", async () => {
    const json = { "content-type": "application/json" };
    const first = request(TRACE, [{ spanId: "eee19b7ec3c1b174", name: "tools/call test__charge" }]);
    const second = request(TRACE, [{ spanId: "eee19b7ec3c1b175", parentSpanId: "eee19b7ec3c1b174", name: "plan" }]);
    expect((await post(JSON.stringify(first), json)).status).toBe(200);
    expect((await post(gzipSync(JSON.stringify(second)), { ...json, "content-encoding": "gzip" })).status).toBe(200);
    await post(JSON.stringify(request(OTHER_TRACE, [{ spanId: "aaa19b7ec3c1b174", name: "sweep" }])), json);

    const got = await spans(TRACE);
    expect(got.map((s) => [s.name, s.parentSpanId])).toEqual([
      ["tools/call test__charge", null],
      ["plan", "eee19b7ec3c1b174"],
    ]);
    expect(got[0]).toMatchObject({
      service: "opledger",
      kind: 2,
      attributes: {
        "mcp.method.name": "tools/call",
        "opledger.attempt": 2,
        "opledger.retry": true,
        "opledger.tags": ["a"],
      },
      events: [{ name: "gate.decision", attributes: { action: "proceed" } }],
    });
    expect((await spans(OTHER_TRACE)).map((s) => s.name)).toEqual(["sweep"]);
  });

  it("reads what the SDK's OTLP/HTTP JSON exporter sends, the servers' own exporter: ids, parents, kinds", async () => {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": "opledger-e2e" }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }))],
    });
    const tracer = provider.getTracer("receiver-test");
    const parent = tracer.startSpan("tools/call test__charge", { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    const child = tracer.startSpan(
      "execute_tool test__charge",
      { attributes: { "gen_ai.tool.call.id": "01OP", "opledger.attempt": 1 } },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
    child.addEvent("opledger.decision", { "opledger.decision": "PROCEED" });
    child.end();
    parent.end();
    await provider.forceFlush();
    await provider.shutdown();

    const { traceId, spanId } = parent.spanContext();
    expect((await spans(traceId)).map((s) => ({ ...s, startTimeUnixNano: "", endTimeUnixNano: "" }))).toEqual([
      {
        service: "opledger-e2e",
        traceId,
        spanId: child.spanContext().spanId,
        parentSpanId: spanId,
        name: "execute_tool test__charge",
        kind: 1,
        attributes: { "gen_ai.tool.call.id": "01OP", "opledger.attempt": 1 },
        events: [{ name: "opledger.decision", attributes: { "opledger.decision": "PROCEED" } }],
        links: [],
        startTimeUnixNano: "",
        endTimeUnixNano: "",
      },
      expect.objectContaining({ spanId, parentSpanId: null, name: "tools/call test__charge", kind: 2 }),
    ]);
  });

  it("refuses protobuf with 415, and answers its health probe", async () => {
    expect((await post(Buffer.from([0x0a, 0x00]), { "content-type": "application/x-protobuf" })).status).toBe(415);
    expect(await (await fetch(`${receiver.url}/health`)).json()).toEqual({ spans: 0 });
  });
});
