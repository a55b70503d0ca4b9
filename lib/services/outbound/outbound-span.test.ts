// The client span of an outbound request, with the SDK's in-memory exporter and a real listener on loopback: named by
// its method, in the trace of the work that sent it, its context in the request's traceparent, the answer's status,
// an error for 4xx, 5xx and no answer, no span for a request refused before it left, and never the URL's path or query.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { inSpan } from "@/lib/platform/telemetry/spans";
import { only, parentId, tracedIntoMemory } from "@/tests/helpers/in-memory-tracing";
import { sendOutbound } from "./send";

const KEY = "charge:order-7781";
let server: Server;
let base: string;
let seen: IncomingHttpHeaders[];
let status: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(status, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  seen = [];
  status = 200;
});

const lookup = (url = `${base}/charges/by-key/${KEY}?key=${KEY}`) =>
  sendOutbound({ url, timeoutMs: 5_000 }, { allowPrivate: true });

describe("with tracing", () => {
  const exporter = tracedIntoMemory();
  beforeEach(() => exporter().reset());

  it("is a CLIENT span in the trace around it, whose context the receiver gets as its traceparent", async () => {
    await inSpan("opledger auto_reconcile", { root: true }, () => lookup());
    const parent = only(exporter(), "opledger auto_reconcile");
    const span = only(exporter(), "GET");
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(parentId(span)).toBe(parent.spanContext().spanId);
    expect(span.attributes).toEqual({
      "http.request.method": "GET",
      "server.address": "127.0.0.1",
      "server.port": Number(new URL(base).port),
      "url.scheme": "http",
      "http.response.status_code": 200,
    });
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    const { traceId, spanId } = span.spanContext();
    expect(seen[0]?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(JSON.stringify(span.attributes)).not.toContain(KEY);
  });

  it("marks a 4xx or 5xx answer and a request that got no answer as errors, with the conventions' error.type", async () => {
    status = 503;
    await lookup();
    const answered = only(exporter(), "GET");
    expect(answered.attributes["error.type"]).toBe("503");
    expect(answered.status.code).toBe(SpanStatusCode.ERROR);

    exporter().reset();
    await lookup("http://127.0.0.1:9/nothing-listens");
    const unreachable = only(exporter(), "GET");
    expect(unreachable.attributes["error.type"]).toBe("unreachable");
    expect(unreachable.attributes["http.response.status_code"]).toBeUndefined();
    expect(unreachable.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("names an IPv6 server by its address, without the URL's brackets", async () => {
    const six = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => six.listen(0, "::1", resolve));
    try {
      const port = (six.address() as AddressInfo).port;
      await lookup(`http://[::1]:${port}/`);
      expect(only(exporter(), "GET").attributes).toMatchObject({ "server.address": "::1", "server.port": port });
    } finally {
      await new Promise((resolve) => six.close(resolve));
    }
  });

  it("opens no span for a request refused before it left", async () => {
    const refused = await sendOutbound({ url: `${base}/x`, timeoutMs: 5_000 }, { allowPrivate: false });
    expect(refused.outcome).toBe("refused");
    expect(exporter().getFinishedSpans()).toHaveLength(0);
    expect(seen).toHaveLength(0);
  });
});

describe("without tracing", () => {
  it("sends no traceparent", async () => {
    expect((await lookup()).outcome).toBe("answered");
    expect(seen[0]?.traceparent).toBeUndefined();
  });
});
