// The floor of any MCP gateway on this machine: a Node HTTP server that forwards tools/list and tools/call to the
// upstream over one SDK Client, with nothing else (no ledger, no key, no Next): the MCP work a gateway cannot avoid (a
// server side for the client, a client side for the upstream), done as cheaply as the SDK allows. Each client keeps a
// session (the SDK's Streamable HTTP server transport with a session id, answering JSON, and a low-level Server of its
// own, both made once at initialize), as the SDK's own JSON-response example does; the upstream is one kept session.
// `node --import tsx scripts/bench/mcp-forwarder.ts <upstream url>` prints its endpoint on stdout.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
  ListToolsResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { fetchWithOwnSignal } from "./mcp-fetch";

const validator = new AjvJsonSchemaValidator();

function forwardingServer(upstream: Client): Server {
  const server = new Server(
    { name: "bench-forwarder", version: "1" },
    { capabilities: { tools: {} }, jsonSchemaValidator: validator },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) =>
    upstream.request({ method: "tools/list", params: request.params }, ListToolsResultSchema),
  );
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    upstream.request({ method: "tools/call", params: request.params }, CallToolResultSchema),
  );
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** Every client's session: its transport (and through it its Server), from initialize until the client ends it. */
function sessionRouter(upstream: Client): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (req, res) => {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = sessions.get(sessionId);
      return transport ? transport.handleRequest(req, res, body) : refuse(res, 404, "Session not found");
    }
    if (!isInitializeRequest(body)) return refuse(res, 400, "No session: initialize first");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await forwardingServer(upstream).connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

async function main(): Promise<void> {
  const upstreamUrl = process.argv[2];
  if (!upstreamUrl) throw new Error("usage: mcp-forwarder.ts <upstream url>");
  const upstream = new Client({ name: "bench-forwarder", version: "1" });
  await upstream.connect(new StreamableHTTPClientTransport(new URL(upstreamUrl), { fetch: fetchWithOwnSignal }));
  const handle = sessionRouter(upstream);
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  console.log(`bench forwarder listening on http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  process.once("SIGTERM", () => {
    http.closeAllConnections();
    http.close(() => process.exit(0));
  });
}

// Only as a process of its own: npm run bench imports every file in scripts/bench to find the modules.
if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`bench forwarder: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
