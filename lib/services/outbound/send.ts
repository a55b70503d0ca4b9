// The one way the server sends an HTTP request on the operator's behalf (provider lookups; webhooks and MCP upstreams
// next): every rule of docs/security.md#outbound-requests checked before anything leaves, the connection pinned to the
// checked addresses, no redirects followed, one deadline, a size cap, and the secret redacted from everything it
// returns.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { env } from "@/lib/platform/config/env";
import { bareHost, isLoopbackAddress } from "./address-policy";
import { outboundSpan } from "./outbound-span";
import { redact } from "./redact";
import {
  refusal,
  type OutboundAnswer,
  type OutboundFailure,
  type OutboundRefusal,
  type OutboundResult,
} from "./refusal";
import { checkedAddresses, systemResolver, type ResolvedAddress, type Resolver } from "./resolve";
import { grantSecret, type Environment } from "./secrets";

/** What is read of an answer at most; the rest is not read. */
export const DEFAULT_MAX_BYTES = 64 * 1024;

export interface OutboundRequest {
  url: string;
  method?: "GET" | "POST";
  /** Headers that are not credentials (accept, content-type...); credentials come only from `secretEnv`. */
  headers?: Record<string, string>;
  /** Sent with POST. */
  body?: string;
  /** The OPLEDGER_SECRET_* variable whose value goes in `secretHeader`. */
  secretEnv?: string;
  /** Default: authorization. */
  secretHeader?: string;
  /** For the whole request: resolving, connecting, the answer and its body. */
  timeoutMs: number;
  /** Bytes of the body kept at most (default 64 KiB); one more tells that there was more, and nothing beyond is read. */
  maxBytes?: number;
}

export interface OutboundOptions {
  /** May the request reach private, loopback and link-local addresses? Default: OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on. */
  allowPrivate?: boolean;
  /** Default: the system resolver. Tests give a name any address. */
  resolve?: Resolver;
  /** Where secrets are read; default process.env, read at each request (a secret may be set after start-up). */
  environment?: Environment;
}

/** Headers that carry credentials or steer the connection: never passed in by a caller. */
const RESERVED_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "host"]);

const TIMED_OUT = Symbol("timed out");

function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof TIMED_OUT> {
  if (signal.aborted) return Promise.resolve(TIMED_OUT);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(TIMED_OUT);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function timedOut(host: string, timeoutMs: number): OutboundFailure {
  return {
    outcome: "failed",
    kind: "timeout",
    detail: `no whole answer within ${timeoutMs} ms`,
    reason: `${host} did not answer within ${timeoutMs} ms.`,
  };
}

function broken(host: string, error: unknown, kind: "unreachable" | "invalid" = "unreachable"): OutboundFailure {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "";
  const detail = code && !message.includes(code) ? `${message} (${code})` : message;
  return {
    outcome: "failed",
    kind,
    detail,
    reason:
      kind === "invalid"
        ? `the request to ${host} could not be made: ${detail}.`
        : `${host} could not be reached: ${detail}.`,
  };
}

/** Every text of a result without the secret: reasons are built from names and hosts, and this makes sure. */
function redacted(result: OutboundResult, secret: string | null): OutboundResult {
  if (!secret) return result;
  switch (result.outcome) {
    case "answered":
      return {
        ...result,
        body: redact(result.body, secret, result.truncated),
        contentType: redactOrNull(result.contentType, secret),
      };
    case "refused":
      return { ...result, reason: redact(result.reason, secret) };
    case "failed":
      return { ...result, detail: redact(result.detail, secret), reason: redact(result.reason, secret) };
    default: {
      const never: never = result;
      return never;
    }
  }
}

function redactOrNull(text: string | null, secret: string): string | null {
  return text === null ? null : redact(text, secret);
}

function cutForText(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Sends one request under the outbound rules. Never throws: an answer (any status but a redirect), a refusal naming
 * its rule (nothing was sent, or a redirect was not followed), or a failure of the network.
 */
export async function sendOutbound(request: OutboundRequest, options: OutboundOptions = {}): Promise<OutboundResult> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return refusal("url", `${cutForText(request.url)} is not an absolute URL; the request was not sent.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return refusal("url", `only http and https are requested, and this URL is ${url.protocol}; it was not sent.`);
  }
  if (url.username || url.password) {
    return refusal(
      "url",
      `the URL to ${url.hostname} carries a user name or password; credentials come only from OPLEDGER_SECRET_* variables.`,
    );
  }
  const host = bareHost(url.hostname);
  const secretHeader = (request.secretHeader ?? "authorization").toLowerCase();
  const headers: Record<string, string> = {
    accept: "*/*",
    // Compressed answers would get past the size cap before being counted.
    "accept-encoding": "identity",
    "user-agent": "opledger",
  };
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower) || lower === secretHeader) {
      return refusal(
        "header",
        `the ${lower} header is never passed in; credentials come only from an OPLEDGER_SECRET_* variable named by the request.`,
      );
    }
    headers[lower] = value;
  }

  let secret: string | null = null;
  let secretName: string | null = null;
  if (request.secretEnv !== undefined) {
    const grant = grantSecret(request.secretEnv, url, options.environment ?? process.env);
    if (!("granted" in grant)) return grant;
    secret = grant.value;
    secretName = grant.name;
    headers[secretHeader] = grant.value;
  }

  const allowPrivate = options.allowPrivate ?? env().OPLEDGER_OUTBOUND_ALLOW_PRIVATE === "on";
  const signal = AbortSignal.timeout(request.timeoutMs);
  let checked: Awaited<ReturnType<typeof checkedAddresses>> | typeof TIMED_OUT;
  try {
    checked = await beforeDeadline(
      checkedAddresses(url.hostname, allowPrivate, options.resolve ?? systemResolver),
      signal,
    );
  } catch (error) {
    return redacted(broken(host, error), secret);
  }
  if (checked === TIMED_OUT) return timedOut(host, request.timeoutMs);
  if (checked.outcome !== "checked") return redacted(checked, secret);
  // "localhost" may be mapped anywhere: the https exception holds only if it really is loopback.
  if (secretName && url.protocol === "http:" && !checked.addresses.every((a) => isLoopbackAddress(a.address))) {
    return refusal(
      "secret_https",
      `${secretName} is only sent over https (or to a loopback address); ${host} does not resolve to loopback only.`,
    );
  }
  const method = request.method ?? "GET";
  const result = await outboundSpan(method, url, (traceHeaders) =>
    exchange({
      url,
      host,
      addresses: checked.addresses,
      method,
      // The request's own headers win over the trace's, should a secret header share its name.
      headers: { ...traceHeaders, ...headers },
      body: request.method === "POST" ? (request.body ?? "") : null,
      signal,
      timeoutMs: request.timeoutMs,
      maxBytes: request.maxBytes ?? DEFAULT_MAX_BYTES,
    }),
  );
  return redacted(result, secret);
}

interface Exchange {
  url: URL;
  host: string;
  addresses: ResolvedAddress[];
  method: "GET" | "POST";
  headers: Record<string, string>;
  body: string | null;
  signal: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
}

/** The request itself, on a fresh connection whose lookup can only return the addresses checked above. */
function exchange(x: Exchange): Promise<OutboundResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: OutboundAnswer | OutboundRefusal | OutboundFailure): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const fail = (error: unknown): void =>
      finish(x.signal.aborted ? timedOut(x.host, x.timeoutMs) : broken(x.host, error));

    // Pinning: the socket asks this instead of DNS, so a name that now resolves elsewhere changes nothing. The Host
    // header and TLS server name stay the URL's host.
    const pinned: LookupFunction = (_hostname, options, callback) => {
      const first = x.addresses[0];
      if (!first) {
        callback(new Error("no checked address"), "", 4);
        return;
      }
      if (options.all)
        callback(
          null,
          x.addresses.map((a) => ({ address: a.address, family: a.family })),
        );
      else callback(null, first.address, first.family);
    };

    const headers = { ...x.headers };
    if (x.body !== null) headers["content-length"] = String(Buffer.byteLength(x.body));
    let req: http.ClientRequest;
    try {
      req = (x.url.protocol === "https:" ? https : http).request({
        hostname: x.host,
        port: x.url.port ? Number(x.url.port) : undefined,
        path: `${x.url.pathname}${x.url.search}`,
        method: x.method,
        headers,
        // A fresh connection every time: a pooled one may have been opened under other settings.
        agent: false,
        lookup: pinned,
        signal: x.signal,
      });
    } catch (error) {
      // Header values the HTTP layer refuses (a line break in a secret, say) end here, before any connection.
      finish(broken(x.host, error, "invalid"));
      return;
    }
    req.on("error", fail);
    req.on("response", (res) => {
      res.on("error", fail);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location !== undefined) {
        req.destroy();
        finish(
          refusal(
            "redirect",
            `${x.host} answered ${status} with a redirect to ${cutForText(location)}; ` +
              "outbound requests do not follow redirects, so the credentials do not travel on.",
            status,
          ),
        );
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = (truncated: boolean): void => {
        const bytes = Buffer.concat(chunks).subarray(0, x.maxBytes);
        finish({
          outcome: "answered",
          status,
          contentType: res.headers["content-type"] ?? null,
          // Redacted with the rest of the result: a body cut at the cap may end in the start of the secret.
          body: bytes.toString("utf8"),
          truncated,
        });
      };
      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size > x.maxBytes) {
          answer(true);
          req.destroy();
        }
      });
      res.on("end", () => answer(false));
      res.on("close", () => {
        if (!res.complete) fail(new Error("the connection closed before the whole answer arrived"));
      });
    });
    req.end(x.body ?? undefined);
  });
}
