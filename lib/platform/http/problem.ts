// RFC 9457 problem documents: every API error is one, with a stable snake_case code. Built as a Reply (status,
// headers, body text), which the agent plane writes to its Node response as it is; the console's route handlers wrap
// the same Reply in a Web Response (webResponse).
import type { Decision } from "@/lib/retry-gate/types";

export interface ProblemInit {
  status: number;
  code: string;
  title: string;
  detail: string;
  errors?: Record<string, string[]>;
  decision?: Decision;
  operationId?: string;
}

/** An answer as the agent plane writes it: `body` null for none (204, or a bare 405). */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

export function problemReply(init: ProblemInit, headers: Record<string, string> = {}): Reply {
  const { status, code, title, detail, ...rest } = init;
  return {
    status,
    headers: { "content-type": "application/problem+json", "cache-control": "no-store", ...headers },
    body: JSON.stringify({ type: `urn:opledger:problem:${code}`, title, status, detail, code, ...rest }),
  };
}

export function jsonReply(body: unknown, status = 200, headers: Record<string, string> = {}): Reply {
  return {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
    body: JSON.stringify(body),
  };
}

export function webResponse(reply: Reply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

export function problem(init: ProblemInit, headers: Record<string, string> = {}): Response {
  return webResponse(problemReply(init, headers));
}

const TITLES: Record<number, string> = {
  400: "Bad request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  413: "Payload too large",
  415: "Unsupported media type",
  422: "Unprocessable content",
  429: "Too many requests",
  500: "Internal server error",
  503: "Service unavailable",
};

export function titleFor(status: number): string {
  return TITLES[status] ?? "Error";
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return webResponse(jsonReply(body, status, headers));
}
