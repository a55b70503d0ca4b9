// The stdio bridge (`npm run -s opledger -- mcp`): for MCP clients that only start local servers. It relays every
// JSON-RPC message between the client (stdio) and the opledger gateway (Streamable HTTP, the agent key as Bearer
// token) in both directions, unchanged; the SDK's HTTP transport keeps the session id.
import type { Readable, Writable } from "node:stream";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { gatewaySettings, type GatewaySettings } from "./gateway-settings";

export interface StdioBridgeOptions extends GatewaySettings {
  stdin?: Readable;
  stdout?: Writable;
  /** Diagnostics; stderr by default, never stdout (stdout is the protocol channel). */
  log?: (line: string) => void;
}

/** Why a request did not reach the gateway, in a few words (a refused connection's code rather than "fetch failed"). */
function reason(error: Error): string {
  const cause = error.cause;
  if (cause instanceof Error) return (cause as NodeJS.ErrnoException).code ?? (cause.message || error.message);
  return error.message;
}

/**
 * Relays until the client closes stdin and its requests are answered (resolves 0, after ending the gateway session)
 * or the gateway cannot be used at all (resolves 1, after one sentence in the log): unreachable or refusing the first
 * message, or refusing the key.
 */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<number> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const stdin = options.stdin ?? process.stdin;
  const endpoint = options.endpoint.href;
  const local = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const remote = new StreamableHTTPClientTransport(options.endpoint, {
    requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } },
  });
  /** Whether the gateway accepted a message: before that, any failure means the bridge cannot work. */
  let accepted = false;
  let initializeId: RequestId | undefined;
  /** Failures already handled where send() rejected; the transport reports them to onerror as well. */
  const sendFailures = new WeakSet<Error>();

  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  let finishing = false;
  const finish = (code: number, line?: string): void => {
    if (finishing) return;
    finishing = true;
    if (line) log(line);
    stdin.off("end", clientGone);
    const endSession = code === 0 ? remote.terminateSession().catch(() => undefined) : Promise.resolve();
    void endSession
      .then(() => Promise.all([remote.close(), local.close()]))
      .catch(() => undefined)
      .then(() => resolveExit(code));
  };
  /** Requests relayed and not yet answered: a client that closes stdin after its last request still gets the answer. */
  const pending = new Set<RequestId>();
  let stdinEnded = false;
  const clientGone = (): void => {
    stdinEnded = true;
    if (pending.size === 0) finish(0);
  };
  const answered = (id: RequestId): void => {
    pending.delete(id);
    if (stdinEnded && pending.size === 0) finish(0);
  };

  const sendFailed = (message: JSONRPCMessage, error: unknown): void => {
    const failure = error instanceof Error ? error : new Error(String(error));
    sendFailures.add(failure);
    const status = error instanceof StreamableHTTPError ? error.code : undefined;
    if (status === 401 || status === 403)
      return finish(
        1,
        `opledger mcp: the gateway at ${endpoint} refused the API key (HTTP ${status}); set OPLEDGER_API_KEY to an active agent key.`,
      );
    if (!accepted)
      return finish(
        1,
        status === undefined || status < 0
          ? `opledger mcp: cannot reach the gateway at ${endpoint} (${reason(failure)}); is opledger running there? OPLEDGER_URL names it.`
          : `opledger mcp: the gateway at ${endpoint} answered HTTP ${status}; is OPLEDGER_URL the opledger server?`,
      );
    // Later, one failed message is answered, not fatal: the gateway may be restarting, and the client decides.
    log(`opledger mcp: a message did not reach the gateway at ${endpoint}: ${reason(failure)}`);
    if (isJSONRPCRequest(message))
      local
        .send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: ErrorCode.InternalError, message: `The opledger gateway did not answer: ${reason(failure)}` },
        })
        .then(
          () => answered(message.id),
          () => finish(0),
        );
  };

  local.onmessage = (message) => {
    if (isJSONRPCRequest(message)) {
      pending.add(message.id);
      if (message.method === "initialize") initializeId = message.id;
    }
    // Not awaited one by one: a long tools/call must not hold back the messages behind it.
    remote.send(message).then(
      () => {
        accepted = true;
      },
      (error: unknown) => sendFailed(message, error),
    );
  };
  local.onerror = (error) => log(`opledger mcp: the client sent something that is not MCP: ${error.message}`);

  remote.onmessage = (message) => {
    // The HTTP transport must send the negotiated version on later requests; the relay is the one that sees it.
    if (initializeId !== undefined && isJSONRPCResultResponse(message) && message.id === initializeId) {
      const version = message.result.protocolVersion;
      if (typeof version === "string") remote.setProtocolVersion(version);
    }
    local.send(message).then(
      () => {
        const isAnswer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
        if (isAnswer && message.id !== undefined) answered(message.id);
      },
      () => finish(0), // stdout is gone: so is the client.
    );
  };
  remote.onerror = (error) => {
    // A failed send is reported here before send() rejects; wait a turn so it is told once, by sendFailed.
    setImmediate(() => {
      if (!sendFailures.has(error) && !finishing) log(`opledger mcp: ${error.message}`);
    });
  };

  stdin.once("end", clientGone);
  await remote.start();
  await local.start();
  return exited;
}

/** `npm run -s opledger -- mcp`: the bridge with OPLEDGER_URL and OPLEDGER_API_KEY; the process's exit code. */
export async function runStdioBridgeCommand(env: Record<string, string | undefined>): Promise<number> {
  const settings = gatewaySettings(env);
  if ("problem" in settings) {
    process.stderr.write(`${settings.problem}\n`);
    return 1;
  }
  return runStdioBridge(settings);
}
