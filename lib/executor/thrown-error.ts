// Names what a provider call threw in the gate's error vocabulary, so the `unknown` report says what went wrong.

/** Node's common network codes, in the gate's error vocabulary; anything else is passed on as it was thrown. */
const NODE_ERROR_KINDS: Record<string, string> = {
  ECONNRESET: "connection_reset",
  EPIPE: "connection_reset",
  UND_ERR_SOCKET: "connection_reset",
  ECONNREFUSED: "connection_refused",
  ETIMEDOUT: "timeout",
  ESOCKETTIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  TimeoutError: "timeout",
};

/** The thrown error's code (also from its cause, as fetch wraps them) or name. */
export function thrownKind(error: unknown): string {
  const raw = errorCode(error) ?? errorCode(error instanceof Error ? error.cause : undefined) ?? errorName(error);
  if (raw === undefined) return "unclassified";
  return NODE_ERROR_KINDS[raw] ?? raw;
}

export function thrownMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : "the provider call threw a non-Error value";
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error && error.name !== "Error" ? error.name : undefined;
}
