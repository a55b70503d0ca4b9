// A `fetch` for long-lived outbound exchanges (MCP upstreams over Streamable HTTP, whose answers stream as SSE) under
// the same rules as sendOutbound: every address of the host checked, the connection pinned to them, https for a
// secret unless every address is loopback; and it tells "nothing left this machine" apart from "sent, then broke".
// Connections are kept between requests, each only for requests whose own check gave the addresses it was opened to.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { bareHost, isLoopbackAddress } from "./address-policy";
import { checkedAddresses, systemResolver, type ResolvedAddress, type Resolver } from "./resolve";

/** The request did not leave: refused by a rule, or no connection was made. Safe to treat as never sent. */
export class NotSentError extends Error {
  override name = "NotSentError";
}

export interface StreamingFetchOptions {
  allowPrivate: boolean;
  /** The OPLEDGER_SECRET_* variables whose values the requests carry (already granted for this URL's host). */
  secretNames: readonly string[];
  /** Default: the system resolver. */
  resolve?: Resolver;
}

export type StreamingFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * How long a kept connection may sit idle here before it is closed: below the idle limits of common servers (Node's and
 * uvicorn's 5 s, gunicorn's 2 s), so that the upstream is not closing one just as it is reused. A shorter
 * `Keep-Alive: timeout=N` from the upstream wins (Node's agent then keeps it N - 1 s, or not at all).
 */
export const KEPT_IDLE_MS = 1000;

/** Errors of a kept connection the upstream closed or reset while it sat idle. */
const CLOSED_CODES = new Set(["ECONNRESET", "EPIPE"]);

/** Statuses whose Response may not have a body. */
const NO_BODY = new Set([204, 205, 304]);

function headerList(init: RequestInit | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

function bodyText(body: RequestInit["body"]): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return body;
  // The MCP transport only ever sends JSON text; anything else is a programming error, refused before it leaves.
  throw new NotSentError("only text request bodies are sent");
}

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  // The socket asks this instead of DNS: a name that now resolves elsewhere changes nothing.
  return (_hostname, options, callback) => {
    const first = addresses[0];
    if (!first) {
      callback(new Error("no checked address"), "", 4);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
}

interface KeptConnections {
  /** The checked addresses the agent's connections were opened to, sorted. */
  addresses: string;
  agent: http.Agent;
}

/**
 * The agent whose kept connections may carry a request to `url` checked to `addresses`: one per origin, replaced (its
 * idle connections then close within KEPT_IDLE_MS) when the check gives other addresses, so a connection is only ever
 * reused for a request whose own check allowed the address it is connected to.
 */
function keptAgent(pools: Map<string, KeptConnections>, url: URL, addresses: ResolvedAddress[]): http.Agent {
  const key = addresses
    .map((a) => a.address)
    .sort()
    .join(" ");
  const pool = pools.get(url.origin);
  if (pool?.addresses === key) return pool.agent;
  const settings = { keepAlive: true, timeout: KEPT_IDLE_MS };
  const agent = url.protocol === "https:" ? new https.Agent(settings) : new http.Agent(settings);
  pools.set(url.origin, { addresses: key, agent });
  return agent;
}

/** A fetch that applies the outbound rules before each request and streams the answer's body as it arrives. */
export function streamingFetch(options: StreamingFetchOptions): StreamingFetch {
  const pools = new Map<string, KeptConnections>();
  return async (input, init) => {
    const url = new URL(input);
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new NotSentError(`only http and https are requested, not ${url.protocol}`);
    if (url.username || url.password) throw new NotSentError("the URL carries credentials of its own");
    const host = bareHost(url.hostname);
    const checked = await checkedAddresses(url.hostname, options.allowPrivate, options.resolve ?? systemResolver);
    if (checked.outcome !== "checked") throw new NotSentError(checked.reason);
    const secret = options.secretNames[0];
    // "localhost" may be mapped anywhere: the https exception holds only if it really is loopback.
    if (secret && url.protocol === "http:" && !checked.addresses.every((a) => isLoopbackAddress(a.address)))
      throw new NotSentError(
        `${secret} is only sent over https (or to a loopback address); ${host} does not resolve to loopback only.`,
      );
    return exchange(url, host, checked.addresses, init, keptAgent(pools, url, checked.addresses));
  };
}

function exchange(
  url: URL,
  host: string,
  addresses: ResolvedAddress[],
  init: RequestInit | undefined,
  agent: http.Agent | false,
): Promise<Response> {
  const body = bodyText(init?.body);
  const headers = headerList(init);
  if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
  const secure = url.protocol === "https:";
  return new Promise<Response>((resolve, reject) => {
    // Not a byte of the request has left until a new connection is up (TLS included) or it is written to a kept one.
    let sent = false;
    let req: http.ClientRequest;
    try {
      req = (secure ? https : http).request({
        hostname: host,
        port: url.port ? Number(url.port) : undefined,
        path: `${url.pathname}${url.search}`,
        method: init?.method ?? "GET",
        headers,
        // A new connection asks the pinned lookup; a kept one was opened to addresses this check gave too.
        agent,
        lookup: pinnedLookup(addresses),
        // A signal of its own that follows the caller's: the SDK passes one signal to every request of a session,
        // and a listener per concurrent request on it trips Node's max-listeners warning.
        signal: init?.signal ? AbortSignal.any([init.signal]) : undefined,
      });
    } catch (error) {
      reject(new NotSentError(`the request to ${host} could not be made: ${messageOf(error)}`));
      return;
    }
    req.on("socket", (socket) => {
      if (!req.reusedSocket) {
        socket.once(secure ? "secureConnect" : "connect", () => {
          sent = true;
        });
        req.end(body ?? undefined);
        return;
      }
      // A kept connection the upstream has just closed: its end or reset may be waiting to be read. The event loop
      // polls once (an immediate scheduled from an immediate runs after the next poll) before a byte is written, so
      // the request fails with nothing sent and goes again on a new connection, rather than being written to a
      // closing one, which would leave it unknown whether it arrived.
      setImmediate(() =>
        setImmediate(() => {
          if (req.destroyed) return;
          sent = true;
          req.end(body ?? undefined);
        }),
      );
    });
    req.on("error", (error) => {
      if (sent) return reject(error);
      // Nothing was written: the kept connection had been closed under it. Once more, on a connection of its own.
      if (req.reusedSocket && CLOSED_CODES.has(errorCode(error)) && !init?.signal?.aborted)
        return resolve(exchange(url, host, addresses, init, false));
      reject(new NotSentError(`${host} could not be reached: ${messageOf(error)}`));
    });
    req.on("response", (res) => {
      const responseHeaders = new Headers();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
        responseHeaders.append(res.rawHeaders[i] ?? "", res.rawHeaders[i + 1] ?? "");
      const status = res.statusCode ?? 0;
      const stream = NO_BODY.has(status) || init?.method === "HEAD" ? null : Readable.toWeb(res);
      if (stream === null) res.resume();
      try {
        resolve(
          new Response(stream as ReadableStream<Uint8Array> & NodeReadableStream<Uint8Array>, {
            status,
            statusText: res.statusMessage ?? "",
            headers: responseHeaders,
          }),
        );
      } catch (error) {
        res.destroy();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

function errorCode(error: unknown): string {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "";
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = errorCode(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
