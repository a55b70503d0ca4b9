// A small stdio MCP server for the upstreams tests: answers, hangs, exits in the middle of a call, adds a tool (so
// the SDK sends tools/list_changed), and offers a tool whose name no gateway client accepts.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "test-upstream", version: "1.0.0" });

server.registerTool("ping", { description: "Answers pong.", annotations: { readOnlyHint: true } }, () => ({
  content: [{ type: "text", text: `pong from ${process.pid}` }],
}));

server.registerTool("exit-mid-call", { description: "Exits before it answers." }, () => {
  setTimeout(() => process.exit(3), 50);
  return new Promise(() => {});
});

server.registerTool("hang", { description: "Never answers." }, () => new Promise(() => {}));

server.registerTool("add-tool", { description: "Adds a tool.", inputSchema: { name: z.string() } }, ({ name }) => {
  server.registerTool(name, { description: "Added at run time." }, () => ({ content: [] }));
  return { content: [{ type: "text", text: `added ${name}` }] };
});

server.registerTool("bad.name", { description: "A dot is not allowed at the gateway." }, () => ({ content: [] }));

// Its secret on stderr, to prove the log line never shows it.
console.error(`test upstream starting with token ${process.env.TOKEN ?? "(none)"}`);
await server.connect(new StdioServerTransport());
