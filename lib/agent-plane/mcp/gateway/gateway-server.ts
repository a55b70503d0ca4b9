// The MCP server one gateway request is answered by: `tools/list` (tools with a contract only, annotated from it),
// `tools/call` (through the ledger, as a task when the client asks for one), the tasks' requests, and prompts and
// resources relayed from the upstreams. Built per request, since everything it knows lives in the ledger and upstreams.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { callOperation } from "@/lib/ledger/commands/plan";
import { changedTools } from "@/lib/ledger/commands/tool-pins";
import { listContracts } from "@/lib/ledger/contracts/contract-versions";
import { parseGatewayToolName } from "@/lib/services/upstreams/tool-names";
import { ajv, argumentsProblem } from "./arguments-check";
import { callKey } from "./call-key";
import { cancelTask, createdTask, getTask, taskResult } from "./call-task";
import { callThroughGateway, planInputOf, type GatewayServerContext } from "./call-tool";
import { outcomeAnswered } from "./delivered-answers";
import { listedTool } from "./listed-tool";
import { toolChanged } from "./matching-pins";
import { refusalResult } from "./model-answer";
import { relayRequests } from "./relayed-requests";
import { declareRunAllowance, RUN_ALLOWANCE_META } from "./run-allowance-meta";
import { observeCall } from "./observe-call";
import { answerFromState } from "./operation-answer";
import { toolContract } from "./tool-contract";
import { seenTool } from "@/lib/services/upstreams/tool-definition";
import { tracedToolCall } from "./call-trace";

export type { GatewayServerContext };

const INSTRUCTIONS =
  "opledger records every call of these tools before it is sent. When a call answers with an opledger error, follow " +
  "its advice: never work around a refusal by calling again with changed arguments.";

/** The contracted tools (a tool without a contract is never listed or called) and which of them changed. */
export async function gatewayTools(ctx: GatewayServerContext): Promise<Tool[]> {
  const [tools, contracts] = await Promise.all([ctx.upstreams.tools(), listContracts(ctx.ledger)]);
  const byTool = new Map(contracts.map((c) => [c.tool, c]));
  const contracted = tools.flatMap((t) => {
    const contract = byTool.get(t.gatewayName);
    return contract ? [{ ...t, contract }] : [];
  });
  const changed = await changedTools(
    ctx.ledger,
    contracted.map((t) => seenTool(t.gatewayName, t.tool, t.contract.version)),
    new Date(),
  );
  return contracted.flatMap((t) => (changed.has(t.gatewayName) ? [] : [listedTool(t.gatewayName, t.tool, t.contract)]));
}

export function gatewayToolCall(ctx: GatewayServerContext, params: CallToolRequest["params"]): Promise<CallToolResult> {
  return tracedToolCall(ctx, params, (traced) => toolCall(traced, params));
}

async function toolCall(ctx: GatewayServerContext, params: CallToolRequest["params"]): Promise<CallToolResult> {
  const name = params.name;
  const args = params.arguments ?? {};
  const parsed = parseGatewayToolName(name);
  const contract = parsed ? await toolContract(ctx.ledger, name) : null;
  if (!contract) return refusalResult({ code: "no_contract", tool: name });
  const upstreamTool = (await ctx.upstreams.tools()).find((t) => t.gatewayName === name);
  if (!parsed || !upstreamTool) {
    return refusalResult({
      code: "unknown_tool",
      tool: name,
      detail: "Its upstream is not running, or no longer offers it.",
    });
  }
  if (await toolChanged(ctx.ledger, name, upstreamTool.tool, contract.version, new Date())) {
    return refusalResult({ code: "tool_changed", tool: name });
  }
  const problem = argumentsProblem(upstreamTool.tool, args);
  if (problem) return refusalResult({ code: "invalid_arguments", tool: name, detail: ` ${problem}` });
  const meta = params._meta;
  const key = callKey(contract.keyFrom, args, `${ctx.actor.id}\n${ctx.run}`, meta?.["opledger/idempotencyKey"]);
  if ("problem" in key) return refusalResult({ code: "invalid_arguments", tool: name, detail: ` ${key.problem}` });
  const allowanceProblem = await declareRunAllowance(ctx, meta?.[RUN_ALLOWANCE_META], new Date());
  if (allowanceProblem) return refusalResult({ code: "invalid_arguments", tool: name, detail: ` ${allowanceProblem}` });
  // The client's _meta goes on to the upstream, but for its progress token (progress is not relayed) and its allowance.
  const { progressToken: _progress, [RUN_ALLOWANCE_META]: _allowance, ...passedOn } = meta ?? {};
  const call = {
    name,
    ...parsed,
    args,
    key: key.key,
    byDefault: key.byDefault,
    run: ctx.run,
    contract,
    meta: passedOn,
  };
  // An upstream waiting to restart would only fail a new attempt as not sent: such a call is refused before anything
  // is recorded, and the same call as an earlier one gets that operation's answer.
  const down = ctx.upstreams.unavailable(parsed.upstream);
  if (down) {
    const earlier = await callOperation(ctx.ledger.store, planInputOf(ctx, call));
    return earlier && earlier.plannedByKeyId === ctx.actor.id
      ? answerFromState(ctx.ledger, ctx.actor, name, earlier.id, new Date(), down)
      : refusalResult({ code: "upstream_unavailable", tool: name, detail: down });
  }
  return contract.mode === "observe" ? observeCall(ctx, call) : callThroughGateway(ctx, call);
}

/** The answer, noted as one whose delivery is recorded once the response finished when it tells the call's outcome. */
function delivering(ctx: GatewayServerContext, answer: CallToolResult): CallToolResult {
  const operation = outcomeAnswered(answer);
  if (operation !== null) ctx.deliveries?.carried.add(operation);
  return answer;
}

/** A tools/call answered to its client (not as a task): its answer's delivery is recorded. */
export async function answeredToolCall(
  ctx: GatewayServerContext,
  params: CallToolRequest["params"],
): Promise<CallToolResult> {
  return delivering(ctx, await gatewayToolCall(ctx, params));
}

export function gatewayServer(ctx: GatewayServerContext): Server {
  const server = new Server(
    { name: "opledger", title: "opledger MCP gateway", version: "1" },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: {},
        resources: {},
        // Any tools/call may run as a task (tasks/list is not offered: a key lists its operations through the API).
        tasks: { cancel: {}, requests: { tools: { call: {} } } },
      },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: ajv,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await gatewayTools(ctx) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    request.params.task
      ? createdTask(ctx, await gatewayToolCall(ctx, request.params))
      : answeredToolCall(ctx, request.params),
  );
  server.setRequestHandler(GetTaskRequestSchema, (request) => getTask(ctx, request.params.taskId));
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) =>
    delivering(ctx, await taskResult(ctx, request.params.taskId, extra.signal)),
  );
  server.setRequestHandler(CancelTaskRequestSchema, (request) => cancelTask(ctx, request.params.taskId));
  relayRequests(server, ctx.upstreams);
  return server;
}
