// The agent plane, registered on the process by instrumentation.ts (compiled by Next.js with the rest of the server,
// so it shares the ledger handle, the aliases and the test build's inlined flags) for scripts/next-server.mjs to call
// before Next.js's own handler.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ownsPath, serveAgentPlane } from "./entry";

/** What scripts/next-server.mjs finds on globalThis under Symbol.for("opledger.agentPlane"). */
export interface AgentPlane {
  owns(url: string): boolean;
  serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

const AGENT_PLANE = Symbol.for("opledger.agentPlane");

export function registerAgentPlane(): void {
  const plane: AgentPlane = { owns: ownsPath, serve: serveAgentPlane };
  (globalThis as Record<symbol, unknown>)[AGENT_PLANE] = plane;
}
