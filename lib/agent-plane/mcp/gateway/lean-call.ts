// The lean `tools/call`: one JSON-RPC request that the SDK's transport would accept, answered as JSON without building
// an SDK Server and transport for it (with the Web Request and Response around them, that was most of a call's CPU
// outside the ledger). It checks what the SDK checks, in its order, with its HTTP statuses, error codes and messages
// (@modelcontextprotocol/sdk, server/webStandardStreamableHttp.js and server/index.js); a request it does not take (a
// task, a batch, a header the transport would refuse, any other method) is answered by the SDK itself, so every
// refusal is the SDK's own.
import { safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";

type RequestHeaders = Pick<Headers, "get">;

/**
 * The request, when it is a tools/call the lean path answers: a single JSON-RPC request whose headers the SDK's
 * transport accepts (Accept with both application/json and text/event-stream, a JSON Content-Type, a supported
 * MCP-Protocol-Version or none), and no task asked for (tasks are the SDK's: call-task.ts).
 */
export function leanToolCall(headers: RequestHeaders, body: unknown): JSONRPCRequest | null {
  if (!isJSONRPCRequest(body) || body.method !== "tools/call") return null;
  const accept = headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return null;
  if (!isJsonContentType(headers.get("content-type"))) return null;
  const version = headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  const params: unknown = body.params;
  return typeof params === "object" && params !== null && "task" in params ? null : body;
}

/**
 * The JSON-RPC answer, as the SDK's Server writes it: the request parsed with CallToolRequestSchema (a request that
 * fails it is answered with the parse error, as the SDK's Protocol does: InternalError and zod's message), the handler
 * given the parsed params, and its result or its error's code and message.
 */
export async function answerToolCall(
  request: JSONRPCRequest,
  handle: (params: CallToolRequest["params"]) => Promise<CallToolResult>,
): Promise<object> {
  const parsed = safeParse(CallToolRequestSchema, request);
  if (!parsed.success) return failure(request, parsed.error as Failure);
  try {
    return { result: await handle(parsed.data.params), jsonrpc: "2.0", id: request.id };
  } catch (error) {
    return failure(request, error as Failure);
  }
}

type Failure = { code?: unknown; message?: string; data?: unknown };

function failure(request: JSONRPCRequest, error: Failure): object {
  return {
    jsonrpc: "2.0",
    id: request.id,
    error: {
      code: Number.isSafeInteger(error.code) ? error.code : ErrorCode.InternalError,
      message: error.message ?? "Internal error",
      ...(error.data !== undefined && { data: error.data }),
    },
  };
}
