// What a route of the agent plane is made of: per method, an endpoint that answers a Reply from a context (method,
// path parameters, query, headers, the body when it asks for it, the ledger, the key and its principal, the time), or,
// for /mcp, one that answers on the Node response itself.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiScope, KeyActor } from "@/lib/platform/auth/api-keys";
import type { HeaderLookup } from "@/lib/platform/auth/key-authentication";
import type { Reply } from "@/lib/platform/http/problem";
import type { ApiKey } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

/** What every endpoint is given, with or without a key. */
export interface RequestContext {
  method: string;
  /** The path as the request wrote it, percent-escapes and all. */
  path: string;
  /** The path's [name] segments, percent-decoded once. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: HeaderLookup;
  /**
   * The body as a JSON value within the size and depth limits (lib/platform/http/request-body.ts), read when the handler asks:
   * after the checks of the path it makes first, as before. Validate it with validBody.
   */
  body: () => Promise<unknown>;
}

/** An endpoint's context once the key is checked: the shared ledger, the key and the principal it acts as. */
export interface KeyContext extends RequestContext {
  ledger: Ledger;
  key: ApiKey;
  actor: KeyActor;
  now: Date;
}

export type Endpoint =
  /** Answered without a key (the OpenAPI document, the probes, the catch-all 404). */
  | { kind: "public"; handle: (ctx: RequestContext) => Reply | Promise<Reply> }
  /**
   * Needs a key with one of `scopes` (any key when empty). `command` names a ledger command for the test build's
   * kill points (lib/testing/kill-point.ts).
   */
  | { kind: "keyed"; scopes: ApiScope[]; command?: string; handle: (ctx: KeyContext) => Promise<Reply> }
  /** Needs a key with one of `scopes`, then answers on the Node response itself (the MCP gateway). */
  | {
      kind: "stream";
      scopes: ApiScope[];
      serve: (req: IncomingMessage, res: ServerResponse, ctx: KeyContext) => Promise<void>;
    };

export function keyed(scopes: ApiScope[], handle: (ctx: KeyContext) => Promise<Reply>, command?: string): Endpoint {
  return { kind: "keyed", scopes, handle, ...(command ? { command } : {}) };
}

export function publicEndpoint(handle: (ctx: RequestContext) => Reply | Promise<Reply>): Endpoint {
  return { kind: "public", handle };
}
