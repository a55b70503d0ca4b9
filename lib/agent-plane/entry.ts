// The agent plane's entry: a Node request for /api/v1, /mcp or a probe, answered without Next.js's routing and
// without a Web Request or Response. In order: the path (redirected when not canonical, as Next.js did; a malformed
// percent-escape is a 400), the route and method (OPTIONS, HEAD, 405), then for a keyed endpoint the start-up, the
// key (lib/platform/auth/key-authentication.ts), its scope, the handler, the test build's kill point, and every error as a
// problem document; a large answer is compressed when the client accepts it (compression.ts). Security headers, HSTS
// and `Connection: close` during a drain are the server's (scripts/next-server.mjs), on every response.
import type { IncomingMessage, ServerResponse } from "node:http";
import { errorReply } from "@/lib/platform/http/error-reply";
import { problemReply, titleFor, type Reply } from "@/lib/platform/http/problem";
import { readNodeJsonValue } from "@/lib/platform/http/request-body";
import { scopesOf } from "@/lib/platform/auth/api-keys";
import { authenticateApiKey, type KeyAuthentication } from "@/lib/platform/auth/key-authentication";
import { requireScope } from "@/lib/platform/auth/roles";
import { withTrace } from "@/lib/ledger/actor";
import { ledger } from "@/lib/ledger/ledger";
import { ensureStarted } from "@/lib/platform/server/startup";
import { callerTraceOfHeaders } from "@/lib/platform/telemetry/caller-trace";
import { killAfterCommit } from "@/lib/testing/kill-point";
import { compressed } from "./compression";
import { METHODS, type Endpoint, type Method, type RequestContext } from "./endpoint";
import { nodeHeaders } from "./node-headers";
import { Router, type Route } from "./router";
import { ROUTES } from "./routes";

const router = new Router(ROUTES);

/** Repeated slashes collapsed and a trailing one dropped, as Next.js's redirect wrote the path. */
function canonicalPath(path: string): string {
  const collapsed = path.includes("//") ? path.replace(/\/{2,}/g, "/") : path;
  return collapsed.length > 1 && collapsed.endsWith("/") ? collapsed.slice(0, -1) : collapsed;
}

function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/** The paths the agent plane answers: /api/v1 and everything below it, /mcp and the two probes. */
export function ownsPath(url: string): boolean {
  const path = canonicalPath(pathOf(url));
  return (
    path.startsWith("/api/v1/") ||
    path === "/api/v1" ||
    path === "/mcp" ||
    path === "/api/health" ||
    path === "/api/health/live"
  );
}

function send(res: ServerResponse, reply: Reply): void {
  const { headers, body } = compressed(reply, res.req.headers["accept-encoding"]);
  res.writeHead(reply.status, headers);
  res.end(body ?? undefined);
}

/** Next.js's permanent redirect to the canonical path, query kept. */
function redirect(location: string): Reply {
  return { status: 308, headers: { location, refresh: `0;url=${location}` }, body: location };
}

/** A request without a usable key: 401 with the bearer challenge, or 429 with Retry-After. */
function keyRefusal(refused: Extract<KeyAuthentication, { ok: false }>): Reply {
  const base = { status: refused.status, title: titleFor(refused.status), detail: refused.detail };
  return refused.status === 429
    ? problemReply({ ...base, code: "too_many_bad_keys" }, { "retry-after": String(refused.retryAfterS) })
    : problemReply({ ...base, code: "unauthorized" }, { "www-authenticate": 'Bearer realm="opledger"' });
}

function served(route: Route): Method[] {
  return METHODS.filter((method) => route.methods[method] !== undefined);
}

/** A method the route does not serve: the API's 405 problem with Allow, or a bare 405. */
function methodRefusal(route: Route): Reply {
  if (route.otherMethods === "bare") return { status: 405, headers: {}, body: null };
  const allowed = served(route).join(", ");
  return problemReply(
    { status: 405, code: "method_not_allowed", title: titleFor(405), detail: `This endpoint answers ${allowed} only.` },
    { allow: allowed },
  );
}

/** OPTIONS, as Next.js answered it: 204 and every method the route answers, HEAD and OPTIONS included. */
function options(route: Route): Reply {
  const methods: string[] = route.otherMethods === "problem" ? [...METHODS] : served(route);
  if (methods.includes("GET")) methods.push("HEAD");
  methods.push("OPTIONS");
  return { status: 204, headers: { allow: methods.sort().join(", ") }, body: null };
}

function endpointFor(route: Route, method: string): Endpoint | undefined {
  // HEAD is GET without the body (Node's response leaves it out).
  return route.methods[(method === "HEAD" ? "GET" : method) as Method];
}

/** The body, read and parsed the first time a handler asks for it. */
function bodyOnce(req: IncomingMessage): () => Promise<unknown> {
  let read: Promise<unknown> | undefined;
  return () => (read ??= readNodeJsonValue(req));
}

async function answer(req: IncomingMessage, res: ServerResponse, endpoint: Endpoint, ctx: RequestContext) {
  if (endpoint.kind === "public") return send(res, await endpoint.handle(ctx));
  await ensureStarted();
  const now = new Date();
  const shared = ledger();
  const verified = await authenticateApiKey(shared, ctx.headers, now);
  if (!verified.ok) return send(res, keyRefusal(verified));
  if (endpoint.scopes.length > 0) requireScope(scopesOf(verified.key), ...endpoint.scopes);
  // The caller's traceparent: what this request plans and dispatches records its trace id (docs/observability.md).
  const actor = withTrace(verified.actor, callerTraceOfHeaders(ctx.headers));
  const keyCtx = { ...ctx, ledger: shared, key: verified.key, actor, now };
  if (endpoint.kind === "stream") return endpoint.serve(req, res, keyCtx);
  const reply = await endpoint.handle(keyCtx);
  if (endpoint.command) await killAfterCommit(endpoint.command, reply);
  send(res, reply);
}

/** Answers a request whose path ownsPath accepted. */
export async function serveAgentPlane(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  const path = pathOf(url);
  const canonical = canonicalPath(path);
  if (canonical !== path) return send(res, redirect(canonical + url.slice(path.length)));
  let segments: string[];
  try {
    segments = path.split("/").slice(1).map(decodeURIComponent);
  } catch {
    return send(
      res,
      problemReply({
        status: 400,
        code: "malformed_path",
        title: titleFor(400),
        detail: "The request path has a malformed percent-escape.",
      }),
    );
  }
  const match = router.match(segments);
  if (!match) return send(res, { status: 404, headers: {}, body: null });
  const method = req.method ?? "GET";
  if (method === "OPTIONS") return send(res, options(match.route));
  const endpoint = endpointFor(match.route, method);
  if (!endpoint) return send(res, methodRefusal(match.route));
  // As Next.js did: the socket's address when no proxy wrote one (the server drops a client's own when no proxy is
  // trusted), so the bad-key throttle keys on the real client.
  req.headers["x-forwarded-for"] ??= req.socket.remoteAddress;
  const ctx: RequestContext = {
    method,
    path,
    params: match.params,
    query: new URLSearchParams(url.slice(path.length + 1)),
    headers: nodeHeaders(req),
    body: bodyOnce(req),
  };
  try {
    await answer(req, res, endpoint, ctx);
  } catch (error) {
    if (!res.headersSent) return send(res, errorReply(error));
    console.error("opledger: the agent plane failed mid-answer:", error instanceof Error ? error.stack : error);
    res.destroy();
  }
}
