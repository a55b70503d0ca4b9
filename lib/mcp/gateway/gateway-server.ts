// The MCP server one gateway request is answered by: `tools/list` (tools with a contract only, annotated from it),
// `tools/call` (through the ledger), and prompts and resources relayed from the upstreams. Built per request, since everything it knows lives in the ledger and upstreams.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { listContracts } from "@/lib/ledger/contracts/contract-versions";
import { contractView } from "@/lib/ledger/contracts/contract-view";
import { parseGatewayToolName } from "@/lib/mcp/upstreams/tool-names";
import { argumentsProblem } from "./arguments-check";
import { callKey } from "./call-key";
import { callThroughGateway, type GatewayContext } from "./call-tool";
import { listedTool } from "./listed-tool";
import { refusalResult } from "./model-answer";
import { relayRequests } from "./relayed-requests";
import { observeCall } from "./observe-call";
import { answerFromState } from "./operation-answer";

export interface GatewayServerContext extends GatewayContext {
  /** The run this request's calls belong to (the MCP session, X-Opledger-Run, or the key's day). */
  run: string;
}

const INSTRUCTIONS =
  "opledger records every call of these tools before it is sent. When a call answers with an opledger error, follow " +
  "its advice: never work around a refusal by calling again with changed arguments.";

export async function gatewayTools(ctx: GatewayServerContext): Promise<Tool[]> {
  const [tools, contracts] = await Promise.all([ctx.upstreams.tools(), listContracts(ctx.ledger)]);
  const byTool = new Map(contracts.map((c) => [c.tool, c]));
  return tools.flatMap((t) => {
    const contract = byTool.get(t.gatewayName);
    return contract ? [listedTool(t.gatewayName, t.tool, contract)] : [];
  });
}

/** The tool's current contract through the ledger's store: one query, the version itself from the store's cache. */
async function contractOf(ctx: GatewayServerContext, name: string): Promise<ContractView | null> {
  const head = await ctx.ledger.store.contractHead(name);
  const row = head ? await ctx.ledger.store.contractVersion(name, head.version) : null;
  return row ? contractView(row) : null;
}

export async function gatewayToolCall(
  ctx: GatewayServerContext,
  params: CallToolRequest["params"],
): Promise<CallToolResult> {
  const name = params.name;
  const args = params.arguments ?? {};
  const parsed = parseGatewayToolName(name);
  const contract = parsed ? await contractOf(ctx, name) : null;
  if (!contract) return refusalResult({ code: "no_contract", tool: name });
  const upstreamTool = (await ctx.upstreams.tools()).find((t) => t.gatewayName === name);
  if (!parsed || !upstreamTool) {
    return refusalResult({
      code: "unknown_tool",
      tool: name,
      detail: "Its upstream is not running, or no longer offers it.",
    });
  }
  const problem = argumentsProblem(upstreamTool.tool, args);
  if (problem) return refusalResult({ code: "invalid_arguments", tool: name, detail: ` ${problem}` });
  const meta = params._meta;
  const key = callKey(contract.keyFrom, args, `${ctx.actor.id}\n${ctx.run}`, meta?.["opledger/idempotencyKey"]);
  if ("problem" in key) return refusalResult({ code: "invalid_arguments", tool: name, detail: ` ${key.problem}` });
  // An upstream waiting to restart would only fail a new attempt as not sent: such a call is refused before anything
  // is recorded, and the same call as an earlier one gets that operation's answer.
  const down = ctx.upstreams.unavailable(parsed.upstream);
  if (down) {
    const earlier = await ctx.ledger.store.operationByKey(name, key.key);
    return earlier && earlier.plannedByKeyId === ctx.actor.id
      ? answerFromState(ctx.ledger, ctx.actor, name, key.key, new Date(), down)
      : refusalResult({ code: "upstream_unavailable", tool: name, detail: down });
  }
  // The client's _meta goes on to the upstream, but for its progress token: progress is not relayed.
  const { progressToken: _progress, ...passedOn } = meta ?? {};
  const call = { name, ...parsed, args, key: key.key, run: ctx.run, contract, meta: passedOn };
  return contract.mode === "observe" ? observeCall(ctx, call) : callThroughGateway(ctx, call);
}

export function gatewayServer(ctx: GatewayServerContext): Server {
  const server = new Server(
    { name: "opledger", title: "opledger MCP gateway", version: "1" },
    { capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await gatewayTools(ctx) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => gatewayToolCall(ctx, request.params));
  relayRequests(server, ctx.upstreams);
  return server;
}
