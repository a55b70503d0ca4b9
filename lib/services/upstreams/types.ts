// What the upstreams layer tells the gateway and the console: an upstream's status, its tools, and how a call went.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

export type UpstreamState = "idle" | "starting" | "ready" | "restarting" | "failed" | "stopped";

export interface UpstreamTool {
  upstream: string;
  /** `<upstream>__<tool>`: the name the gateway lists and contracts are kept under. */
  gatewayName: string;
  /** The tool as the upstream describes it (its name, schemas and hints: untrusted). */
  tool: Tool;
}

export interface UpstreamStatus {
  name: string;
  kind: "command" | "url";
  /** What it runs or where it is, never a secret: the command line, or the URL. */
  target: string;
  state: UpstreamState;
  /** One sentence on why it last failed or exited; null after a clean start. */
  lastError: string | null;
  /** Null until the tools were first listed (or after the upstream failed to start). */
  tools: UpstreamTool[] | null;
  toolsFetchedAt: Date | null;
}

/**
 * How one `tools/call` went. `not_sent` and `no_answer` are kept apart because one may be retried and the other may
 * have had its effect: when it is not certain that nothing left, it is `no_answer`.
 */
export type UpstreamCall =
  /** The upstream answered (isError or not). */
  | { outcome: "answered"; result: CallToolResult }
  /** A JSON-RPC error answer (e.g. -32602 invalid params, -32601 unknown tool). */
  | { outcome: "refused"; code: number; message: string }
  /** Could not be sent at all: upstream not running, failed to start, connection refused before any byte. */
  | { outcome: "not_sent"; reason: string }
  /** Sent, and no answer came: timeout, connection lost, process exited mid-call. */
  | { outcome: "no_answer"; reason: string };

export interface CallOptions {
  /** The whole call, from sending to the answer; not cut by the SDK's 60 s default. */
  timeoutMs: number;
  /** Passed as the request's `_meta`. */
  meta?: Record<string, unknown>;
}

export type ToolsChangedListener = (upstream: string) => void;

/** Where the upstreams layer writes its lines (child stderr, restarts, refused changes). */
export type UpstreamLog = (line: string) => void;
