// How an upstream's tool is named at the gateway: `<upstream>__<tool>`, in the characters every MCP client accepts.

/** What every client accepts as a tool name (letters, digits, `_`, `-`; at most 128). */
export const GATEWAY_TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** Between the upstream's name and the tool's; upstream names cannot contain it, so the first one splits. */
export const TOOL_SEPARATOR = "__";

export function gatewayToolName(upstream: string, tool: string): string {
  return `${upstream}${TOOL_SEPARATOR}${tool}`;
}

/** The upstream and its tool behind a gateway name, or null when the name is not one the gateway gives out. */
export function parseGatewayToolName(name: string): { upstream: string; tool: string } | null {
  if (!GATEWAY_TOOL_NAME.test(name)) return null;
  const at = name.indexOf(TOOL_SEPARATOR);
  if (at <= 0) return null;
  const tool = name.slice(at + TOOL_SEPARATOR.length);
  if (tool.length === 0) return null;
  return { upstream: name.slice(0, at), tool };
}
