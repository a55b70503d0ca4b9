// Serves a fresh MCP server per session over Streamable HTTP on 127.0.0.1, optionally behind a Bearer token, so the
// gateway's URL upstreams and the stdio bridge can be tested against a real HTTP MCP server.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

export interface HttpServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** When set, every request must carry `Authorization: Bearer <bearer>`. */
  bearer?: string;
}

export interface ServedMcp {
  /** The endpoint, http://127.0.0.1:<port>/mcp. */
  url: string;
  close: () => Promise<void>;
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

export async function serveOverHttp(create: () => McpServer, options: HttpServeOptions): Promise<ServedMcp> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") return refuse(res, 404, "Not found: use /mcp");
    if (options.bearer !== undefined && req.headers.authorization !== `Bearer ${options.bearer}`)
      return refuse(res, 401, "Unauthorized", { "www-authenticate": "Bearer" });
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = sessions.get(sessionId);
      if (!transport) return refuse(res, 404, "Session not found");
      return transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return refuse(res, 400, "No session: initialize first");
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return refuse(res, 400, "No session: initialize first");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await create().connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) refuse(res, 500, error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
