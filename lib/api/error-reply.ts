// Every error an API handler can meet, as the problem document it answers: the ledger's refusals with their codes,
// bad bodies, missing scopes, illegal transitions, and anything else as a logged 500.
import { ForbiddenError } from "@/lib/auth/roles";
import { LedgerError } from "@/lib/ledger/errors";
import { IllegalTransitionError } from "@/lib/retry-gate/phases";
import { problemReply, titleFor, webResponse, type Reply } from "./problem";
import { BodyError } from "./request-body";

export function errorReply(error: unknown): Reply {
  if (error instanceof LedgerError) {
    return problemReply(
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
    return problemReply({
      status: error.status,
      code: error.code,
      title: titleFor(error.status),
      detail: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
    });
  }
  if (error instanceof ForbiddenError) {
    return problemReply({ status: 403, code: "forbidden", title: titleFor(403), detail: error.message });
  }
  if (error instanceof IllegalTransitionError) {
    return problemReply({ status: 409, code: "illegal_transition", title: titleFor(409), detail: error.message });
  }
  console.error("opledger: unhandled error in API handler:", error instanceof Error ? error.stack : error);
  return problemReply({
    status: 500,
    code: "internal_error",
    title: titleFor(500),
    detail: "The server failed to handle this request; it has been logged. Retrying the same request is safe.",
  });
}

/** errorReply as a Web Response, for the console's route handlers (lib/api/console-route.ts). */
export function errorResponse(error: unknown): Response {
  return webResponse(errorReply(error));
}
