// The MCP gateway (docs/mcp.md): Streamable HTTP for any MCP client, with an agent key.
import { apiRoute } from "@/lib/api/route";
import { mcpEndpointContext } from "@/lib/mcp/gateway/endpoint-context";
import { mcpResponse } from "@/lib/mcp/gateway/mcp-endpoint";

const handle = apiRoute(["agent"], ({ req, ledger, actor, now }) =>
  mcpResponse(req, mcpEndpointContext(ledger, actor, now)),
);

export const POST = handle;
export const GET = handle;
export const DELETE = handle;
