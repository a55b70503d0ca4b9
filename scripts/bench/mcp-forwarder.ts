// The floor of any MCP gateway on this machine: a Node HTTP server that answers each request with the SDK's stateless
// Streamable HTTP transport and a low-level Server, and forwards tools/list and tools/call to the upstream over one
// SDK Client. No ledger, no key, no Next: what is left is the MCP work a gateway cannot avoid (a server side for the
// client, a client side for the upstream). `node --import tsx scripts/bench/mcp-forwarder.ts <upstream url>` prints
// its endpoint on stdout.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

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

async function main(): Promise<void> {
  const upstreamUrl = process.argv[2];
  if (!upstreamUrl) throw new Error("usage: mcp-forwarder.ts <upstream url>");
  const upstream = new Client({ name: "bench-forwarder", version: "1" });
  await upstream.connect(new StreamableHTTPClientTransport(new URL(upstreamUrl)));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const server = forwardingServer(upstream);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    res.on("close", () => void server.close());
    await transport.handleRequest(req, res, body);
  };
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
