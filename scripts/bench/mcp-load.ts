// A closed-loop MCP load generator: N SDK clients, each initialized once, each sending its next tools/call when the
// last one answered.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fetchWithOwnSignal } from "./mcp-fetch";

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface McpRound {
  calls: number;
  seconds: number;
  latenciesMs: number[];
}

/**
 * What a benchmarked call is: its name and arguments for the client's n-th call, and what its answer must show (a
 * sentence when it does not: a benchmark of errors, or of calls answered some other way, measures nothing).
 */
export interface McpScenario {
  call(agent: number, n: number): ToolCall;
  problem(result: CallToolResult): string | null;
}

export class McpLoad {
  private constructor(readonly clients: Client[]) {}

  /** `count` clients of the MCP endpoint at `url`, each connected (initialize, initialized) before it returns. */
  static async connect(url: string, count: number, bearer?: string): Promise<McpLoad> {
    const clients = await Promise.all(
      Array.from({ length: count }, async () => {
        const client = new Client({ name: "opledger-bench", version: "1" });
        const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
        await client.connect(
          new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: fetchWithOwnSignal }),
        );
        return client;
      }),
    );
    return new McpLoad(clients);
  }

  /** Every client calls in a loop until `seconds` have passed; every call's latency is recorded. */
  async round(seconds: number, scenario: McpScenario): Promise<McpRound> {
    const latenciesMs: number[] = [];
    const started = performance.now();
    const deadline = Date.now() + seconds * 1000;
    await Promise.all(
      this.clients.map(async (client, agent) => {
        for (let n = 0; Date.now() < deadline; n++) {
          const call = scenario.call(agent, n);
          const t0 = performance.now();
          const result = (await client.callTool(call)) as CallToolResult;
          latenciesMs.push(performance.now() - t0);
          const problem = scenario.problem(result);
          if (problem) throw new Error(`${call.name} ${JSON.stringify(call.arguments)}: ${problem}`);
        }
      }),
    );
    return { calls: latenciesMs.length, seconds: (performance.now() - started) / 1000, latenciesMs };
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }
}
