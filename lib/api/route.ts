// The one wrapper every API v1 handler is built on: authenticates the key, checks its scope, and turns every error into
// a problem document.
import { scopesOf, type ApiScope } from "@/lib/auth/api-keys";
import { authenticateApiKey, type KeyAuthentication } from "@/lib/auth/key-authentication";
import { ForbiddenError, requireScope } from "@/lib/auth/roles";
import { ledger, type Ledger } from "@/lib/ledger/ledger";
import type { ApiKey } from "@/lib/generated/prisma/client";
import type { KeyActor } from "@/lib/auth/api-keys";
import { LedgerError } from "@/lib/ledger/errors";
import { IllegalTransitionError } from "@/lib/retry-gate/phases";
import { problem, titleFor } from "./problem";
import { BodyError } from "./request-body";
import { ensureStarted } from "@/lib/server/startup";
import { killAfterCommit } from "@/lib/testing/kill-point";

export interface ApiContext<P> {
  req: Request;
  params: P;
  ledger: Ledger;
  key: ApiKey;
  /** The key's principal: its id, its scopes, and the person an operator or admin key acts as. */
  actor: KeyActor;
  now: Date;
}

type Handler<P> = (ctx: ApiContext<P>) => Promise<Response>;

/** A request without a usable key: 401 with the bearer challenge, or 429 with Retry-After (key-authentication.ts). */
function keyRefusal(refused: Extract<KeyAuthentication, { ok: false }>): Response {
  const base = { status: refused.status, title: titleFor(refused.status), detail: refused.detail };
  return refused.status === 429
    ? problem({ ...base, code: "too_many_bad_keys" }, { "retry-after": String(refused.retryAfterS) })
    : problem({ ...base, code: "unauthorized" }, { "www-authenticate": 'Bearer realm="opledger"' });
}

export function errorResponse(error: unknown): Response {
  if (error instanceof LedgerError) {
    return problem(
      {
        status: error.status,
        code: error.code,
        title: titleFor(error.status),
        detail: error.message,
        ...(error.extra.errors ? { errors: error.extra.errors } : {}),
        ...(error.extra.decision ? { decision: error.extra.decision } : {}),
        ...(error.extra.operationId ? { operationId: error.extra.operationId } : {}),
      },
      error.code === "database_busy" ? { "retry-after": "1" } : {},
    );
  }
  if (error instanceof BodyError) {
    return problem({
      status: error.status,
      code: error.code,
      title: titleFor(error.status),
      detail: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
    });
  }
  if (error instanceof ForbiddenError) {
    return problem({ status: 403, code: "forbidden", title: titleFor(403), detail: error.message });
  }
  if (error instanceof IllegalTransitionError) {
    return problem({ status: 409, code: "illegal_transition", title: titleFor(409), detail: error.message });
  }
  console.error("opledger: unhandled error in API handler:", error instanceof Error ? error.stack : error);
  return problem({
    status: 500,
    code: "internal_error",
    title: titleFor(500),
    detail: "The server failed to handle this request; it has been logged. Retrying the same request is safe.",
  });
}

/** Builds a route handler that needs an API key with one of `scopes`. */
export function apiRoute<P = Record<string, never>>(scopes: ApiScope[], handler: Handler<P>) {
  return async (req: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      await ensureStarted();
      const now = new Date();
      const shared = ledger();
      const verified = await authenticateApiKey(shared, req, now);
      if (!verified.ok) return keyRefusal(verified);
      if (scopes.length > 0) requireScope(scopesOf(verified.key), ...scopes);
      const { key, actor } = verified;
      const response = await handler({ req, params: await context.params, ledger: shared, key, actor, now });
      await killAfterCommit(req, response);
      return response;
    } catch (error) {
      return errorResponse(error);
    }
  };
}
