// MCP tasks (protocol 2025-11-25) for gateway calls, above all those that wait for a person. A task is a view of the
// call's operation: its id is the operation id and its state is the operation's, in the ledger, so any instance answers
// tasks/get, tasks/result and tasks/cancel and no process remembers a task. Only the agent key that planned the
// operation sees it or acts on it; to any other key there is no such task. Once a person approved, the next tasks/get
// or tasks/result (on whichever instance it reaches) runs the call under the operation's lease (decision 022).
import {
  ErrorCode,
  McpError,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateTaskResult,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import type { Operation } from "@/lib/platform/generated/prisma/client";
import { rejectOperation } from "@/lib/ledger/commands/approval";
import { LedgerError } from "@/lib/ledger/errors";
import { parseGatewayToolName } from "@/lib/services/upstreams/tool-names";
import { callThroughGateway, type GatewayCall, type GatewayServerContext } from "./call-tool";
import type { GatewayCode } from "./model-answer";
import { answerFromState } from "./operation-answer";
import { toolContract } from "./tool-contract";

/** How often a client is asked to poll tasks/get, and how often a waiting tasks/result looks at the ledger. */
export const TASK_POLL_MS = 2000;

/** The reason recorded when an agent withdraws its own call by cancelling the task. */
export const WITHDRAWN_REASON = "withdrawn by its agent (MCP tasks/cancel)";

/** Answers that leave the call open: a person has not decided yet, or the call may still run. */
const OPEN: ReadonlySet<unknown> = new Set<GatewayCode>([
  "approval_required",
  "suspected_duplicate",
  "in_flight",
  "retry_not_due",
  "upstream_unavailable",
]);

const codeOf = (answer: CallToolResult): unknown => answer._meta?.["opledger/code"];

/** The answer's own sentence: what a person or a model reads about the call now. */
function sentenceOf(answer: CallToolResult): string {
  const last = answer.content.at(-1);
  return last?.type === "text" ? last.text : "";
}

function noSuchTask(taskId: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `There is no task ${taskId} for this key.`);
}

/** The gateway operation behind a task id, when this key planned it; any other is "no such task", never "not yours". */
async function ownedOperation(ctx: GatewayServerContext, taskId: string): Promise<Operation> {
  const rows = await ctx.ledger.store.operationContext(taskId);
  if (!rows || rows.op.via !== "mcp" || rows.op.plannedByKeyId !== ctx.actor.id) throw noSuchTask(taskId);
  return rows.op;
}

/** The call an operation stands for, as the gateway runs it; null when its tool lost its contract or its name. */
async function callOf(ctx: GatewayServerContext, op: Operation): Promise<GatewayCall | null> {
  const parsed = parseGatewayToolName(op.tool);
  const contract = parsed ? await toolContract(ctx.ledger, op.tool) : null;
  if (!parsed || !contract) return null;
  const args = JSON.parse(op.argsJson) as Record<string, unknown>;
  // The operation itself, by its own key: a task never becomes a repeat of its call.
  return {
    name: op.tool,
    ...parsed,
    args,
    key: op.idempotencyKey,
    byDefault: false,
    run: op.runId ?? ctx.run,
    contract,
  };
}

/**
 * The answer the call has now, as the same call made again would get it; a call nobody waits for any more (a person
 * approved it, or its retry is due) is run first, under the operation's lease.
 */
async function answerNow(ctx: GatewayServerContext, op: Operation, run: boolean): Promise<CallToolResult> {
  const upstream = parseGatewayToolName(op.tool)?.upstream;
  const down = upstream === undefined ? null : ctx.upstreams.unavailable(upstream);
  const answer = await answerFromState(ctx.ledger, ctx.actor, op.tool, op.id, new Date(), down ?? undefined);
  // "Running" from the ledger's state is also what an approved call, or one whose retry is due, reads as: nobody is
  // waited for, so it runs now (or, when another request holds its lease, is told so again).
  if (!run || codeOf(answer) !== "in_flight") return answer;
  const call = await callOf(ctx, op);
  return call ? callThroughGateway(ctx, call) : answer;
}

/** Whether the planning key itself rejected the operation: its agent withdrew the call (tasks/cancel). */
async function withdrawn(ctx: GatewayServerContext, op: Operation): Promise<boolean> {
  const rejection = await ctx.ledger.db.auditEvent.findFirst({
    where: { subjectType: "operation", subjectId: op.id, action: "operation.rejected" },
    orderBy: { id: "desc" },
    select: { actorId: true },
  });
  return rejection !== null && rejection.actorId === op.plannedByKeyId;
}

async function statusOf(ctx: GatewayServerContext, op: Operation, answer: CallToolResult): Promise<Task["status"]> {
  if (!answer.isError) return "completed";
  if (OPEN.has(codeOf(answer))) return "working";
  return op.phase === "REJECTED" && (await withdrawn(ctx, op)) ? "cancelled" : "failed";
}

const isOpen = (status: Task["status"]): boolean => status === "working" || status === "input_required";

interface TaskNow {
  task: Task;
  answer: CallToolResult;
}

async function taskNow(ctx: GatewayServerContext, taskId: string, run: boolean): Promise<TaskNow> {
  const answer = await answerNow(ctx, await ownedOperation(ctx, taskId), run);
  // Read again: running the call moved the operation on.
  const op = await ownedOperation(ctx, taskId);
  const status = await statusOf(ctx, op, answer);
  const task: Task = {
    taskId,
    status,
    statusMessage: status === "completed" ? `The call succeeded (operation ${op.id}).` : sentenceOf(answer),
    createdAt: op.createdAt.toISOString(),
    lastUpdatedAt: op.updatedAt.toISOString(),
    // The ledger keeps the operation, so the task lasts as long as its record does.
    ttl: null,
    pollInterval: TASK_POLL_MS,
  };
  return { task, answer };
}

/**
 * tools/call with `task`: the call has run as far as it could (held for a person, or finished); its operation is the
 * task. A call refused before it became an operation of its own has no task: its refusal is the JSON-RPC error.
 */
export async function createdTask(ctx: GatewayServerContext, answer: CallToolResult): Promise<CreateTaskResult> {
  const operationId = answer._meta?.["opledger/operation"];
  if (typeof operationId !== "string" || codeOf(answer) === "idempotency_key_reused") {
    throw new McpError(ErrorCode.InvalidParams, sentenceOf(answer), answer._meta);
  }
  return { task: (await taskNow(ctx, operationId, false)).task };
}

/** tasks/get: the task's status, after running the call if a person approved it since. */
export async function getTask(ctx: GatewayServerContext, taskId: string): Promise<Task> {
  return (await taskNow(ctx, taskId, true)).task;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new McpError(ErrorCode.RequestTimeout, "The client stopped waiting for the task."));
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new McpError(ErrorCode.RequestTimeout, "The client stopped waiting for the task."));
      },
      { once: true },
    );
  });
}

/**
 * tasks/result: the call's answer once the task is over (the upstream's result, or the refusal: rejected, expired,
 * failed), exactly as the plain call would answer it; until then it waits, looking at the ledger every poll interval.
 */
export async function taskResult(
  ctx: GatewayServerContext,
  taskId: string,
  signal: AbortSignal,
): Promise<CallToolResult> {
  for (;;) {
    const { task, answer } = await taskNow(ctx, taskId, true);
    if (!isOpen(task.status)) return { ...answer, _meta: { ...answer._meta, [RELATED_TASK_META_KEY]: { taskId } } };
    await pause(TASK_POLL_MS, signal);
  }
}

/**
 * tasks/cancel: the agent withdraws its own call, which the ledger records as its rejection by that key. It never
 * approves anything, and a call already sent cannot be withdrawn (the ledger refuses, and so does the task).
 */
export async function cancelTask(ctx: GatewayServerContext, taskId: string): Promise<Task> {
  const before = await taskNow(ctx, taskId, false);
  if (!isOpen(before.task.status)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Task ${taskId} is already ${before.task.status}; it cannot be cancelled.`,
    );
  }
  try {
    await rejectOperation(ctx.ledger, taskId, { reason: WITHDRAWN_REASON }, ctx.actor, new Date());
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} cannot be cancelled: ${error.message}`);
  }
  return (await taskNow(ctx, taskId, false)).task;
}
