// The production HTTP server (spawned by scripts/launch.ts): the agent plane (lib/agent-plane: /api/v1, /mcp, the
// probes) and Next.js's request handler (the console: everything else) on one Node server, in one process with one
// ledger handle, that drains on SIGTERM or SIGINT and then exits (decision 026).
//
// Why not `next start`: after its server.close(), Node keeps serving new requests on connections that were already
// open and closes them only after the keep-alive timeout, so a busy client (a load balancer's pool) can hold the drain
// open; and `next start`'s 5 s keep-alive is shorter than load balancers' idle timeouts (60 s), which makes the server
// close sockets a balancer is about to reuse (ECONNRESET). Here: a long keep-alive, and during the drain every
// response says `Connection: close` and every connection is closed as soon as it is idle.
//
// Also the two things only the running process can decide: files it creates are its owner's alone (umask 077, before
// anything opens the database), and Strict-Transport-Security goes on every response, static files included, when the
// console is served over https (next.config.js's headers are fixed at build time, before NEXTAUTH_URL is known).
import http from "node:http";
import { createRequire } from "node:module";
import next from "next";

const require = createRequire(import.meta.url);
/** The headers every response carries; next.config.js gives Next.js's responses the same list. */
const SECURITY_HEADERS = require("./security-headers.cjs");

/** lib/platform/config/database-url.ts OWNER_ONLY_UMASK: the database, its -wal and -shm, the demo's state: 0600. */
process.umask(0o077);

/** Longer than the idle timeout of common load balancers and HTTP client pools (60 s). */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Node's default headersTimeout (60 s) must stay above the keep-alive timeout. */
const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000;
/** A drain still waiting after this (a request stuck on a lock) ends with exit 1 instead of never. */
const DRAIN_TIMEOUT_MS = 25_000;

/** Two years, as hstspreload.org advises; no includeSubDomains: other hosts of the operator's domain are not ours. */
const STRICT_TRANSPORT_SECURITY = "max-age=63072000";

const port = Number(process.env.PORT ?? 3000);
// Loopback unless HOSTNAME says otherwise: scripts/launch.ts warns when another address is bound over plain http.
const hostname = process.env.HOSTNAME || "127.0.0.1";
const httpsPublicUrl = (process.env.NEXTAUTH_URL ?? "").toLowerCase().startsWith("https://");

/** OPLEDGER_TRUSTED_PROXIES, validated by lib/platform/config/env.ts before this server starts. */
const trustedProxies = Number(process.env.OPLEDGER_TRUSTED_PROXIES ?? 0);

/**
 * Served over https: the public URL says so, or a trusted TLS-terminating proxy does. X-Forwarded-Proto is read like
 * X-Forwarded-For (lib/platform/auth/client-address.ts): the entry written by the outermost trusted proxy, counted from the
 * right; with no trusted proxy it is the client's own word, and is ignored.
 */
function servedOverHttps(req) {
  if (httpsPublicUrl) return true;
  if (trustedProxies === 0) return false;
  const forwarded = req.headers["x-forwarded-proto"];
  const entries = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? "")).split(",").map((e) => e.trim());
  return entries[Math.max(entries.length - trustedProxies, 0)]?.toLowerCase() === "https";
}

const app = next({ dev: false, dir: process.cwd(), hostname, port });
await app.prepare();
const handle = app.getRequestHandler();

// instrumentation.ts's register() registers the agent plane. In production Next.js 16 runs it at the first request its
// handler gets (NextServer.prepare() prepares the server only in development), and the plane's requests never reach
// that handler: so the registration is awaited here, through the once-only hook Next.js itself calls, before the
// server listens.
const {
  ensureInstrumentationRegistered,
} = require("next/dist/server/lib/router-utils/instrumentation-globals.external.js");
await ensureInstrumentationRegistered(process.cwd(), process.env.NEXT_DIST_DIR || ".next");
const agentPlane = globalThis[Symbol.for("opledger.agentPlane")];
if (!agentPlane) {
  console.error("opledger: instrumentation.ts did not register the agent plane; is the build current?");
  process.exit(1);
}

let draining = false;
const server = http.createServer((req, res) => {
  if (draining) res.setHeader("connection", "close");
  // Browsers ignore the header on a plain-http response, so a health check over http is not harmed by it.
  if (servedOverHttps(req)) res.setHeader("strict-transport-security", STRICT_TRANSPORT_SECURITY);
  res.on("finish", () => {
    // A connection whose last response just ended is idle: during a drain, close it now rather than after the
    // keep-alive.
    if (draining) setImmediate(() => server.closeIdleConnections());
  });
  // With no proxy in front, X-Forwarded-For is whatever the client wrote: dropped, so Next (or the agent plane) fills
  // it from the socket and sign-in throttling keys on the real address (lib/platform/auth/client-address.ts).
  // X-Forwarded-Proto likewise: Next.js then takes the scheme from the socket, so nothing believes a client's "https".
  if (trustedProxies === 0) {
    delete req.headers["x-forwarded-for"];
    delete req.headers["x-forwarded-proto"];
  }
  if (agentPlane.owns(req.url ?? "/")) {
    for (const { key, value } of SECURITY_HEADERS) res.setHeader(key, value);
    agentPlane.serve(req, res).catch((error) => failed(req, res, error));
    return;
  }
  handle(req, res).catch((error) => failed(req, res, error));
});
server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
server.headersTimeout = HEADERS_TIMEOUT_MS;

function failed(req, res, error) {
  console.error(`opledger: request ${req.method} ${req.url} failed:`, error);
  if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
  res.end("Internal Server Error");
}

function drain(signal) {
  if (draining) return;
  draining = true;
  const started = Date.now();
  console.log(`opledger: ${signal}: no new connections; finishing the requests in flight`);
  server.close(async () => {
    await app.close().catch((error) => console.error("opledger: closing Next.js failed:", error));
    // The spans still in the batch are exported before exit (lib/platform/telemetry/start-tracing.ts; absent when not tracing).
    await globalThis[Symbol.for("opledger.tracing")]
      ?.shutdown()
      .catch((error) => console.error("opledger: exporting the last spans failed:", error));
    console.log(`opledger: drained in ${Date.now() - started} ms; exiting`);
    process.exit(0);
  });
  server.closeIdleConnections();
  setTimeout(() => {
    console.error(`opledger: requests still in flight ${DRAIN_TIMEOUT_MS} ms after ${signal}; exiting anyway`);
    process.exit(1);
  }, DRAIN_TIMEOUT_MS).unref();
}
process.on("SIGTERM", () => drain("SIGTERM"));
process.on("SIGINT", () => drain("SIGINT"));
// Started by scripts/launch.ts, the server is its child on an IPC channel; should the launcher die without passing a
// signal on, the channel closes and the server drains instead of serving on as an orphan nobody can stop.
process.on("disconnect", () => drain("the launcher exited"));

server.on("error", (error) => {
  console.error(`opledger: the HTTP server failed: ${error.message}`);
  process.exit(1);
});
server.listen(port, hostname, () => {
  console.log(`opledger: listening on http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`);
});
