// TEMPORARY, until the gateway answers a Node request itself (serveMcp in lib/mcp/gateway/mcp-endpoint.ts): /mcp
// through today's Web-based mcpResponse. The Node request becomes a Web Request (its body streamed, its signal aborted
// when the client goes away) and the Web Response is streamed back (Server-Sent Events included).
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { mcpEndpointContext } from "@/lib/mcp/gateway/endpoint-context";
import { mcpResponse } from "@/lib/mcp/gateway/mcp-endpoint";
import type { KeyContext } from "./endpoint";

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

export async function serveMcpThroughWeb(req: IncomingMessage, res: ServerResponse, ctx: KeyContext): Promise<void> {
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/mcp"}`, {
    method: req.method,
    headers: webHeaders(req),
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    signal: gone.signal,
    // Node's fetch needs this to take a streamed body.
    ...({ duplex: "half" } as object),
  });
  const response = await mcpResponse(request, mcpEndpointContext(ctx.ledger, ctx.actor, ctx.now));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  // A client that goes away ends the stream early: nothing more to send, and nothing to report.
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res).catch(() => undefined);
}
