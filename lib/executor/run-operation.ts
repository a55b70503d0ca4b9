// runOperation: runs an operation that is already planned, by its id, as runTool runs the one it plans. This is how an
// agent runs work planned for it elsewhere: a person's replay is planned under the agent's key and waits in PLANNED
// (or AWAITING_APPROVAL, then PLANNED once approved); the agent finds it with
// GET /api/v1/operations?phase=PLANNED and runs each with its own provider call.
import { claimAndRun } from "./claim-and-run";
import { OpledgerClient } from "./client";
import type { CallProvider } from "./provider";
import { prepareRun, type RunToolOptions } from "./run-options";
import type { RunToolResult } from "./run-result";

/** runTool's options less the plan's: the operation already has its key, run and agent. */
export type RunOperationOptions = Omit<RunToolOptions, "idempotencyKey" | "runId" | "agentId">;

/**
 * Claims operation `id` and runs its attempts with `callProvider` (called with the operation's idempotency key; the
 * arguments to send are the operation's `args`, as listed), obeying the gate exactly as runTool does. Resolves with
 * where the operation stands; rejects with an ApiProblem for answers it cannot act on (404 for another key's operation).
 */
export async function runOperation(
  id: string,
  callProvider: CallProvider,
  options: RunOperationOptions,
): Promise<RunToolResult> {
  const client = options.client instanceof OpledgerClient ? options.client : new OpledgerClient(options.client);
  options.signal?.throwIfAborted();
  const operation = await client.getOperation(id, options.signal);
  const run = prepareRun(operation.tool, callProvider, { ...options, client });
  return claimAndRun(run, operation);
}
