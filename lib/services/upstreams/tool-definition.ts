// What a person classified when they made a contract for an MCP tool: its name, description, input schema and hints,
// as the upstream describes it (the pin of lib/ledger/commands/tool-pins.ts).
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { SeenTool, ToolDefinition } from "@/lib/ledger/commands/tool-pins";

export function toolDefinition(tool: Tool): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations ?? null,
  };
}

export function seenTool(gatewayName: string, tool: Tool, contractVersion: number): SeenTool {
  return { tool: gatewayName, contractVersion, definition: toolDefinition(tool) };
}
