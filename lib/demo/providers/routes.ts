// The shape every demo provider's routes share: a request the server has read, and what a route answers.
import type { IncomingHttpHeaders } from "node:http";
import type { ProviderName, RequestKind } from "./faults";
import type { ProviderStore } from "./store";

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ProviderRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** X-Opledger-Operation-Id, sent by the demo agent so a test can tie effects to operations. */
  operationId: string | null;
  /** X-Opledger-Attempt. */
  attempt: number | null;
}

/** A request a provider will serve; faults are drawn before `commit` runs. */
export interface RouteMatch {
  provider: ProviderName;
  kind: RequestKind;
  /** Applies the effect (or reads) and returns the answer. Synchronous: a commit is one step. */
  commit: () => Reply;
  /** The provider's own definite refusal for the client_error fault; null when it would not refuse this request. */
  refuse: () => Reply | null;
}

export interface ProviderContext {
  store: ProviderStore;
  now: () => number;
  /** A new provider id with a prefix (ch_, msg_, dep_ ...). */
  newId: (prefix: string) => string;
}

/** A route table: a match, an immediate answer (validation, auth), or null when the path is not this provider's. */
export type Router = (req: ProviderRequest, ctx: ProviderContext) => RouteMatch | Reply | null;

export function isReply(value: RouteMatch | Reply): value is Reply {
  return "status" in value;
}

export function header(req: ProviderRequest, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function problem(status: number, code: string, message: string): Reply {
  return { status, body: { error: { code, message } } };
}
