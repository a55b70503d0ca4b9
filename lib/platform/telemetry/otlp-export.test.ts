// The OTLP exporter as the server starts it, against a tiny local HTTP receiver: http/protobuf and http/json each post
// to /v1/traces with their content type, and the span arrives (flushed by stopTracing, as the drain does).
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { inSpan } from "./spans";
import { startTracing, stopTracing } from "./start-tracing";

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

async function receiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        contentType: req.headers["content-type"] ?? "",
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { "content-type": req.headers["content-type"] ?? "application/json" });
      res.end(req.headers["content-type"] === "application/json" ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const saved = { ...process.env };
afterEach(async () => {
  await stopTracing();
  for (const name of Object.keys(process.env)) if (name.startsWith("OTEL_")) delete process.env[name];
  Object.assign(process.env, saved);
});

describe("OTLP export", () => {
  it("sends spans over http/protobuf and over http/json, each with its content type", async () => {
    for (const [protocol, contentType] of [
      ["http/protobuf", "application/x-protobuf"],
      ["http/json", "application/json"],
    ] as const) {
      const sink = await receiver();
      try {
        Object.assign(process.env, {
          OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_SERVICE_NAME: "opledger-export-test",
        });
        expect(await startTracing(process.env)).toBe(true);
        const traceId = await inSpan("opledger plan", { root: true }, (span) =>
          Promise.resolve(span.spanContext().traceId),
        );
        await stopTracing();
        expect(sink.received.map((r) => [r.path, r.contentType])).toEqual([["/v1/traces", contentType]]);
        const body = sink.received[0]!.body;
        expect(body.includes("opledger plan")).toBe(true);
        expect(body.includes("opledger-export-test")).toBe(true);
        if (protocol === "http/json") expect(body.toString()).toContain(traceId);
        else expect(body.includes(Buffer.from(traceId, "hex"))).toBe(true);
      } finally {
        await sink.close();
      }
    }
  });
});
