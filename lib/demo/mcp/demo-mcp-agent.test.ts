// The demo MCP agent against a real Streamable HTTP MCP server standing in for the gateway (Bearer key checked): it
// calls the listed desk tools, logs one line per call, takes isError answers in its stride, and stops on abort.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, expect, test } from "vitest";
import { z } from "zod";
import { serveOverHttp, type ServedMcp } from "@/e2e/mcp/test-upstream/http";
import { runDemoMcpAgent } from "./demo-mcp-agent";

const KEY = "opledger_demo_mcp_agent_test_key_0123456789";
let served: ServedMcp | null = null;

afterEach(async () => {
  await served?.close();
  served = null;
});

/** Answers find_customer, and refuses create_ticket the way the gateway refuses a call. */
function standInGateway(): McpServer {
  const server = new McpServer({ name: "stand-in-gateway", version: "1.0.0" });
  server.registerTool("desk__find_customer", { inputSchema: { email: z.string() } }, ({ email }) => ({
    content: [{ type: "text", text: `found ${email}` }],
  }));
  server.registerTool("desk__create_ticket", { inputSchema: { customer: z.string(), subject: z.string() } }, () => ({
    content: [{ type: "text", text: "The outcome of this call is unknown. Do not call it again." }],
    isError: true,
  }));
  return server;
}

test(
  "calls the listed desk tools, logs ok and refused answers, and ends when aborted",
  { timeout: 30_000 },
  async () => {
    served = await serveOverHttp(standInGateway, { port: 0, bearer: KEY });
    const lines: string[] = [];
    const controller = new AbortController();
    let seed = 3;
    const random = () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
    const running = runDemoMcpAgent({
      gatewayUrl: served.url.replace(/\/mcp$/, ""),
      apiKey: KEY,
      signal: controller.signal,
      paceMs: 10,
      random,
      log: (line) => {
        lines.push(line);
        if (lines.length >= 12) controller.abort();
      },
    });
    await running;
    expect(lines.some((l) => /desk__find_customer ok: found \S+@example\.com/.test(l))).toBe(true);
    expect(
      lines.some((l) => /desk__create_ticket refused or failed: The outcome of this call is unknown/.test(l)),
    ).toBe(true);
  },
);

test("a wrong key is logged once and retried, not thrown", { timeout: 30_000 }, async () => {
  served = await serveOverHttp(standInGateway, { port: 0, bearer: KEY });
  const lines: string[] = [];
  const controller = new AbortController();
  const running = runDemoMcpAgent({
    gatewayUrl: served.url.replace(/\/mcp$/, ""),
    apiKey: "wrong",
    signal: controller.signal,
    reconnectMs: 20,
    log: (line) => lines.push(line),
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  controller.abort();
  await running;
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^opledger demo mcp: the gateway at http:\/\/127\.0\.0\.1:\d+\/mcp answered HTTP 401; connecting again$/,
  );
});
