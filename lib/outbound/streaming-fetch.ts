// A `fetch` for long-lived outbound exchanges (MCP upstreams over Streamable HTTP, whose answers stream as SSE) under
// the same rules as sendOutbound: every address of the host checked, the connection pinned to them, https for a
// secret unless every address is loopback; and it tells "nothing left this machine" apart from "sent, then broke".
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

/** A fetch that applies the outbound rules before each request and streams the answer's body as it arrives. */
export function streamingFetch(options: StreamingFetchOptions): StreamingFetch {
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
    return exchange(url, host, checked.addresses, init);
  };
}

function exchange(url: URL, host: string, addresses: ResolvedAddress[], init: RequestInit | undefined) {
  const body = bodyText(init?.body);
  const headers = headerList(init);
  if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
  const secure = url.protocol === "https:";
  return new Promise<Response>((resolve, reject) => {
    // Until the connection is up (TLS included), not a byte of the request has left.
    let connected = false;
    let req: http.ClientRequest;
    try {
      req = (secure ? https : http).request({
        hostname: host,
        port: url.port ? Number(url.port) : undefined,
        path: `${url.pathname}${url.search}`,
        method: init?.method ?? "GET",
        headers,
        // A fresh connection every time: a pooled one may have been opened under other settings.
        agent: false,
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
      socket.once(secure ? "secureConnect" : "connect", () => {
        connected = true;
      });
    });
    req.on("error", (error) => {
      reject(connected ? error : new NotSentError(`${host} could not be reached: ${messageOf(error)}`));
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
    req.end(body ?? undefined);
  });
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "";
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
