// RFC 9457 problem documents: every API error is one, with a stable snake_case code.
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

export function problem(init: ProblemInit, headers: Record<string, string> = {}): Response {
  const { status, code, title, detail, ...rest } = init;
  return new Response(JSON.stringify({ type: `urn:opledger:problem:${code}`, title, status, detail, code, ...rest }), {
    status,
    headers: { "content-type": "application/problem+json", "cache-control": "no-store", ...headers },
  });
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
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/** Handlers for the methods a route does not serve: a 405 problem with Allow, instead of Next's empty 405. */
export function otherMethods(...allowed: Method[]): Record<Method, () => Response> {
  const refuse = (): Response =>
    problem(
      {
        status: 405,
        code: "method_not_allowed",
        title: titleFor(405),
        detail: `This endpoint answers ${allowed.join(", ")} only.`,
      },
      { allow: allowed.join(", ") },
    );
  return Object.fromEntries(METHODS.map((m) => [m, refuse])) as Record<Method, () => Response>;
}
