// `POST|GET|DELETE /mcp`: the gateway over Streamable HTTP, stateless so any instance answers any request. The
// session id minted at initialize names the run; nothing about it is kept in memory.
import os from "node:os";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { BodyError, readJsonValue } from "@/lib/api/request-body";
import { crossSiteRefusal } from "@/lib/api/same-origin";
import type { KeyActor } from "@/lib/auth/api-keys";
import { newId } from "@/lib/ledger/ids";
import type { Ledger } from "@/lib/ledger/ledger";
import type { Upstreams } from "@/lib/mcp/upstreams/registry";
import { noteCancellations, recordingDeliveries } from "./delivered-answers";
import { gatewayServer, type GatewayServerContext } from "./gateway-server";
import type { ToolListChanges } from "./tool-list-changes";

/** A run named by the client (session id or X-Opledger-Run): printable, and short enough to index. */
const RUN_NAME = /^[\x21-\x7e]{1,128}$/;
/**
 * This instance as a worker: its host and an id of its own (two instances on hosts of the same name, with the same pid,
 * are still two); each call leases under `<this>:<call id>` (call-tool.ts).
 */
const WORKER = `mcp:${os.hostname()}:${newId()}`;

const LOG = (line: string): void => console.log(line);

export interface McpEndpointContext {
  ledger: Ledger;
  actor: KeyActor;
  upstreams: Upstreams;
  changes: ToolListChanges;
  now: Date;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The session id, X-Opledger-Run, or one run per key and day; a malformed one is refused rather than renamed. */
function runOf(req: Request, actor: KeyActor, now: Date): string | Response {
  for (const header of ["mcp-session-id", "x-opledger-run"]) {
    const value = req.headers.get(header);
    if (value === null) continue;
    return RUN_NAME.test(value)
      ? value
      : jsonRpcError(400, -32600, `${header} must be 1 to 128 printable ASCII characters without spaces.`);
  }
  return `mcp:${actor.id}:${now.toISOString().slice(0, 10)}`;
}

/**
 * Every answer is for one client only, and small: never cached, and never gzipped on the way out (Next's compression
 * honours no-transform), which cost more CPU per call than the JSON-RPC itself.
 */
function uncached(response: Response): Response {
  response.headers.set("cache-control", "no-store, no-transform");
  return response;
}

async function post(req: Request, ctx: McpEndpointContext): Promise<Response> {
  let body: unknown;
  try {
    body = await readJsonValue(req);
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    return jsonRpcError(error.status, error.code === "payload_too_large" ? -32600 : -32700, error.message);
  }
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const initializing = messages.some((m) => isInitializeRequest(m));
  const session = initializing ? newId() : null;
  const run = session ?? runOf(req, ctx.actor, ctx.now);
  if (run instanceof Response) return run;
  noteCancellations(run, messages, ctx.now.getTime());
  const delivering = new Set<string>();
  const server = gatewayServer({ ...serverContext(ctx, run), delivering });
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  // A client that goes away ends a waiting tasks/result (closing the server aborts its handlers); a tools/call,
  // which does not look at its signal, still runs to its outcome.
  req.signal.addEventListener("abort", () => void server.close(), { once: true });
  try {
    const response = await transport.handleRequest(req, { parsedBody: body });
    if (session && response.ok) response.headers.set("mcp-session-id", session);
    const request = { run, messages, operations: delivering };
    return uncached(recordingDeliveries(response, req.signal, request, { ...ctx, log: LOG }));
  } finally {
    await server.close();
  }
}

/** The stream a client keeps open for `notifications/tools/list_changed`. */
async function listen(req: Request, ctx: McpEndpointContext): Promise<Response> {
  const server = gatewayServer(serverContext(ctx, "listen"));
  const transport = new WebStandardStreamableHTTPServerTransport({});
  await server.connect(transport);
  const response = await transport.handleRequest(req);
  if (!response.ok) {
    await server.close();
    return response;
  }
  const unsubscribe = ctx.changes.subscribe(() => void server.sendToolListChanged().catch(() => undefined));
  req.signal.addEventListener(
    "abort",
    () => {
      unsubscribe();
      void server.close();
    },
    { once: true },
  );
  return response;
}

function serverContext(ctx: McpEndpointContext, run: string): GatewayServerContext {
  return {
    ledger: ctx.ledger,
    actor: ctx.actor,
    upstreams: ctx.upstreams,
    worker: WORKER,
    run,
    log: LOG,
  };
}

export function mcpResponse(req: Request, ctx: McpEndpointContext): Promise<Response> {
  const crossSite = crossSiteRefusal(req);
  if (crossSite) return Promise.resolve(crossSite);
  switch (req.method) {
    case "POST":
      return post(req, ctx);
    case "GET":
      return listen(req, ctx);
    case "DELETE":
      // Nothing of a session is kept, so ending one changes nothing; the client may start another.
      return Promise.resolve(new Response(null, { status: 200 }));
    default:
      return Promise.resolve(jsonRpcError(405, -32000, "Method not allowed: use POST, GET or DELETE."));
  }
}
