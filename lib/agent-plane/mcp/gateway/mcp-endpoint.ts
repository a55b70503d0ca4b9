// `POST|GET|DELETE /mcp`: the gateway over Streamable HTTP, on Node's request and response, stateless so any instance
// answers any request. The session id minted at initialize names the run; nothing about it is kept in memory. A
// tools/call is answered by the lean path (lean-call.ts); everything else by the SDK's Server and transport.
import type { IncomingMessage, ServerResponse } from "node:http";
import os from "node:os";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { nodeHeaders } from "@/lib/agent-plane/node-headers";
import { problem, titleFor } from "@/lib/platform/http/problem";
import { BodyError, readNodeJsonValue } from "@/lib/platform/http/request-body";
import { CROSS_SITE_DETAIL } from "@/lib/platform/http/same-origin";
import type { KeyActor } from "@/lib/platform/auth/api-keys";
import { sentFromAnotherSite } from "@/lib/platform/auth/same-site";
import { newId } from "@/lib/ledger/ids";
import type { Ledger } from "@/lib/ledger/ledger";
import type { Upstreams } from "@/lib/services/upstreams/registry";
import { noteCancellations, ResponseDeliveries, settleDeliveries } from "./delivered-answers";
import { answeredToolCall, gatewayServer, type GatewayServerContext } from "./gateway-server";
import { answerToolCall, leanToolCall } from "./lean-call";
import type { ToolListChanges } from "./tool-list-changes";

/** A run named by the client (session id or X-Opledger-Run): printable, and short enough to index. */
const RUN_NAME = /^[\x21-\x7e]{1,128}$/;
/**
 * This instance as a worker: its host and an id of its own (two instances on hosts of the same name, with the same pid,
 * are still two); each call leases under `<this>:<call id>` (call-tool.ts).
 */
const WORKER = `mcp:${os.hostname()}:${newId()}`;
/**
 * Every answer is for one client only, and small: never cached, and never compressed on the way out (a proxy or
 * framework honours no-transform), which cost more CPU per call than the JSON-RPC itself.
 */
const UNCACHED = "no-store, no-transform";

const LOG = (line: string): void => console.log(line);

type RequestHeaders = ReturnType<typeof nodeHeaders>;

export interface McpEndpointContext {
  ledger: Ledger;
  actor: KeyActor;
  upstreams: Upstreams;
  changes: ToolListChanges;
  now: Date;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "cache-control": UNCACHED });
  res.end(text);
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: "2.0", id: null, error: { code, message } });
}

/** A Web Response (the SDK's, or a problem document) written out; its body is cancelled if the client goes away. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  // A listening stream may stay silent for long: its client sees it open only once the headers are out.
  if (headers["content-type"]?.startsWith("text/event-stream")) res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = (): void => void reader.cancel().catch(() => undefined);
  res.once("close", stop);
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
  } catch {
    // The client went away and the body was cancelled: nothing is left to write.
  } finally {
    res.off("close", stop);
  }
  res.end();
}

/** Aborted when the client goes away before its response was written out in full. */
function clientGone(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** The request as the SDK's Web transport reads it; the body is handed over already parsed. */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return new Request(new URL(req.url ?? "/mcp", "http://localhost"), { method: req.method, headers, signal });
}

/** The session id, X-Opledger-Run, or one run per key and day; a malformed one is refused rather than renamed. */
function runOf(headers: RequestHeaders, actor: KeyActor, now: Date): string | { problem: string } {
  for (const header of ["mcp-session-id", "x-opledger-run"]) {
    const value = headers.get(header);
    if (value === null) continue;
    return RUN_NAME.test(value)
      ? value
      : { problem: `${header} must be 1 to 128 printable ASCII characters without spaces.` };
  }
  return `mcp:${actor.id}:${now.toISOString().slice(0, 10)}`;
}

function serverContext(ctx: McpEndpointContext, run: string, deliveries?: ResponseDeliveries): GatewayServerContext {
  return {
    ledger: ctx.ledger,
    actor: ctx.actor,
    upstreams: ctx.upstreams,
    worker: WORKER,
    run,
    log: LOG,
    ...(deliveries ? { deliveries } : {}),
  };
}

/** A tools/call without an SDK Server: its answer goes straight into this response, so its outcome marks it delivered. */
async function leanCall(
  res: ServerResponse,
  request: JSONRPCRequest,
  ctx: McpEndpointContext,
  run: string,
  messages: unknown[],
): Promise<void> {
  const deliveries = new ResponseDeliveries(run, messages, res);
  const gateway = serverContext(ctx, run, deliveries);
  const reply = await answerToolCall(request, (params) => answeredToolCall(gateway, params));
  settleDeliveries(res, deliveries, { ...ctx, log: LOG });
  sendJson(res, 200, reply);
}

/** Any other POST, answered by the SDK's Server and transport (JSON answers). */
async function sdkPost(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: McpEndpointContext,
  message: { body: unknown; messages: unknown[]; run: string; session: string | null },
): Promise<void> {
  const deliveries = new ResponseDeliveries(message.run, message.messages, null);
  const server = gatewayServer(serverContext(ctx, message.run, deliveries));
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  // A client that goes away ends a waiting tasks/result (closing the server aborts its handlers); a tools/call,
  // which does not look at its signal, still runs to its outcome.
  const gone = clientGone(res);
  gone.addEventListener("abort", () => void server.close(), { once: true });
  let response: Response;
  try {
    response = await transport.handleRequest(webRequest(req, gone), { parsedBody: message.body });
  } finally {
    await server.close();
  }
  if (message.session && response.ok) response.headers.set("mcp-session-id", message.session);
  response.headers.set("cache-control", UNCACHED);
  settleDeliveries(res, deliveries, { ...ctx, log: LOG });
  await sendResponse(res, response);
}

async function post(
  req: IncomingMessage,
  res: ServerResponse,
  headers: RequestHeaders,
  ctx: McpEndpointContext,
): Promise<void> {
  let body: unknown;
  try {
    body = await readNodeJsonValue(req);
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    return sendJsonRpcError(res, error.status, error.code === "payload_too_large" ? -32600 : -32700, error.message);
  }
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const session = messages.some((m) => isInitializeRequest(m)) ? newId() : null;
  const run = session ?? runOf(headers, ctx.actor, ctx.now);
  if (typeof run !== "string") return sendJsonRpcError(res, 400, -32600, run.problem);
  noteCancellations(run, messages, ctx.now.getTime());
  const call = leanToolCall(headers, body);
  if (call) return leanCall(res, call, ctx, run, messages);
  return sdkPost(req, res, ctx, { body, messages, run, session });
}

/** The stream a client keeps open for `notifications/tools/list_changed`. */
async function listen(req: IncomingMessage, res: ServerResponse, ctx: McpEndpointContext): Promise<void> {
  const server = gatewayServer(serverContext(ctx, "listen"));
  const transport = new WebStandardStreamableHTTPServerTransport({});
  await server.connect(transport);
  const gone = clientGone(res);
  const response = await transport.handleRequest(webRequest(req, gone));
  if (!response.ok || gone.aborted) {
    await server.close();
    return sendResponse(res, response);
  }
  const unsubscribe = ctx.changes.subscribe(() => void server.sendToolListChanged().catch(() => undefined));
  gone.addEventListener(
    "abort",
    () => {
      unsubscribe();
      void server.close();
    },
    { once: true },
  );
  await sendResponse(res, response);
}

/**
 * Answers one request to `/mcp` whose agent key the caller has checked (scope agent) and whose context it built
 * (mcpEndpointContext): the same-site rule, the body's limits, the run, then MCP.
 */
export async function serveMcp(req: IncomingMessage, res: ServerResponse, ctx: McpEndpointContext): Promise<void> {
  const headers = nodeHeaders(req);
  const method = req.method ?? "";
  if (sentFromAnotherSite(method, headers)) {
    const status = 403;
    return sendResponse(
      res,
      problem({ status, code: "cross_site_request", title: titleFor(status), detail: CROSS_SITE_DETAIL }),
    );
  }
  switch (method) {
    case "POST":
      return post(req, res, headers, ctx);
    case "GET":
      return listen(req, res, ctx);
    case "DELETE":
      // Nothing of a session is kept, so ending one changes nothing; the client may start another.
      res.writeHead(200);
      res.end();
      return;
    default:
      return sendJsonRpcError(res, 405, -32000, "Method not allowed: use POST, GET or DELETE.");
  }
}
