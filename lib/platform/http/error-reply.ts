// Every error an API handler can meet, as the problem document it answers: the ledger's refusals with their codes,
// bad bodies, missing scopes, illegal transitions, and anything else as a logged 500.
import { problemReply, titleFor, webResponse, type Reply } from "./problem";
import { refusalOf } from "./refusal";

export function errorReply(error: unknown): Reply {
  const refusal = refusalOf(error);
  if (refusal) {
    const { status, code, message, ...rest } = refusal;
    return problemReply(
      { status, code, title: titleFor(status), detail: message, ...rest },
      code === "database_busy" ? { "retry-after": "1" } : {},
    );
  }
  console.error("opledger: unhandled error in API handler:", error instanceof Error ? error.stack : error);
  return problemReply({
    status: 500,
    code: "internal_error",
    title: titleFor(500),
    detail: "The server failed to handle this request; it has been logged. Retrying the same request is safe.",
  });
}

/** errorReply as a Web Response, for the console's route handlers (lib/console/console-route.ts). */
export function errorResponse(error: unknown): Response {
  return webResponse(errorReply(error));
}
