// The demo world's MCP agent: an MCP client of the gateway (`/mcp`, its agent key as Bearer token) that lists the
// desk's tools and calls some every few seconds. The gateway's refusals come back as isError answers; showing them
// is the point, so they are logged, never thrown.
import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DESK_CUSTOMERS } from "./desk";
import { DEMO_UPSTREAM_NAME } from "./demo-upstreams";

export interface DemoMcpAgentOptions {
  /** The opledger server, e.g. http://127.0.0.1:3000; the agent talks to `${gatewayUrl}/mcp`. */
  gatewayUrl: string;
  /** An API key with the agent scope. Never logged. */
  apiKey: string;
  /** Aborting it ends the agent: runDemoMcpAgent resolves after closing its session. */
  signal: AbortSignal;
  /** Pause between two calls (a random time between half of it and all of it); default 4000 ms. */
  paceMs?: number;
  /** Pause before connecting again after the gateway could not be reached; default 5000 ms. */
  reconnectMs?: number;
  random?: () => number;
  /** One line per call (unless logCalls is false), and connection problems. */
  log?: (line: string) => void;
  /** Default true; the demo world turns it off, as a line every few seconds would bury the server's own log. */
  logCalls?: boolean;
}

/** Few subjects on purpose: the same customer and subject come back, and the gateway answers from the ledger. */
const SUBJECTS = ["Card declined at checkout", "Refund not received", "Cannot reset password", "Invoice address wrong"];
const NOTES = ["Called the customer back.", "Waiting for the bank's answer.", "Escalated to billing."];
const CALL_TIMEOUT_MS = 60_000;

function pick<T>(list: readonly T[], random: () => number): T {
  return list[Math.floor(random() * list.length)] ?? (list[0] as T);
}

/** Resolves after `ms`, or at once when the signal aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => undefined);
}

function firstLine(result: CallToolResult): string {
  const text = result.content.find((item) => item.type === "text")?.text ?? "";
  const line = text.split("\n")[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

class DeskCalls {
  /** Tickets this agent opened, for notes and closing. */
  private readonly tickets: string[] = [];

  constructor(private readonly random: () => number) {}

  /** The next call among the listed tools: mostly tickets and notes, some lookups and closings. */
  next(listed: Set<string>): { name: string; args: Record<string, string> } | null {
    const name = (tool: string): string => `${DEMO_UPSTREAM_NAME}__${tool}`;
    const customer = pick(DESK_CUSTOMERS, this.random);
    const ticket = this.tickets.length > 0 ? pick(this.tickets, this.random) : "T-0001";
    const all: { name: string; weight: number; args: Record<string, string> }[] = [
      { name: name("find_customer"), weight: 3, args: { email: customer.email } },
      { name: name("create_ticket"), weight: 4, args: { customer: customer.id, subject: pick(SUBJECTS, this.random) } },
      { name: name("add_note"), weight: 3, args: { ticket, text: pick(NOTES, this.random) } },
      { name: name("close_ticket"), weight: 1, args: { ticket } },
    ];
    const choices = all.filter((choice) => listed.has(choice.name));
    const total = choices.reduce((sum, choice) => sum + choice.weight, 0);
    let roll = this.random() * total;
    for (const choice of choices) {
      roll -= choice.weight;
      if (roll < 0) return { name: choice.name, args: choice.args };
    }
    return null;
  }

  remember(result: CallToolResult): void {
    const ticket = /\bT-\d{4}\b/.exec(firstLine(result))?.[0];
    if (ticket && !this.tickets.includes(ticket)) this.tickets.push(ticket);
  }
}

/** A connection problem in a few words: the HTTP status, or the network error's code. */
function problemOf(error: unknown, endpoint: URL): string {
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0)
    return `the gateway at ${endpoint.href} answered HTTP ${error.code}`;
  if (error instanceof Error && error.cause instanceof Error)
    return `cannot reach the gateway at ${endpoint.href} (${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message})`;
  return error instanceof Error ? error.message : String(error);
}

/** Runs until `signal` aborts; connection problems are logged and retried, never thrown. */
export async function runDemoMcpAgent(options: DemoMcpAgentOptions): Promise<void> {
  const { signal } = options;
  const log = options.log ?? ((line: string) => console.log(line));
  const random = options.random ?? Math.random;
  const paceMs = options.paceMs ?? 4000;
  const endpoint = new URL(`${options.gatewayUrl.replace(/\/+$/, "")}/mcp`);
  const calls = new DeskCalls(random);
  let lastProblem = "";

  while (!signal.aborted) {
    const client = new Client({ name: "opledger-demo-mcp-agent", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } },
    });
    // Aborting closes the client, which ends its pending requests; one listener per connection, not per request.
    const closeOnAbort = (): void => void client.close().catch(() => undefined);
    signal.addEventListener("abort", closeOnAbort, { once: true });
    try {
      await client.connect(transport);
      lastProblem = "";
      while (!signal.aborted) {
        const listed = new Set((await client.listTools()).tools.map((tool) => tool.name));
        const call = calls.next(listed);
        if (!call) {
          const problem = `opledger demo mcp: the gateway lists none of the ${DEMO_UPSTREAM_NAME} tools yet (no contracts?)`;
          if (problem !== lastProblem) log(problem);
          lastProblem = problem;
        } else {
          const result = (await client.callTool({ name: call.name, arguments: call.args }, undefined, {
            timeout: CALL_TIMEOUT_MS,
          })) as CallToolResult;
          calls.remember(result);
          if (options.logCalls ?? true)
            log(`opledger demo mcp: ${call.name} ${result.isError ? "refused or failed" : "ok"}: ${firstLine(result)}`);
        }
        await pause(paceMs * (0.5 + random() / 2), signal);
      }
    } catch (error) {
      if (signal.aborted) break;
      // Said once per kind of problem: a gateway that is still starting would otherwise fill the log.
      const problem = `opledger demo mcp: ${problemOf(error, endpoint)}; connecting again`;
      if (problem !== lastProblem) log(problem);
      lastProblem = problem;
      await pause(options.reconnectMs ?? 5000, signal);
    } finally {
      signal.removeEventListener("abort", closeOnAbort);
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    }
  }
}
