// The agent of the crash harness: runs one tool call with the executor, reconciles by lookup when the gate asks, and
// SIGKILLs (or SIGSTOPs) its process at the boundary it is told; a ledger that stops answering ends it with
// `unreachable`. Runs as a worker process (worker.ts), or inside the spec where nothing kills it (in-process.ts).
import { ApiProblem, OpledgerClient, type Operation } from "../../lib/executor/client";
import { runTool, type CallProvider, type RunToolResult } from "../../lib/executor/run-tool";
import type { KillAt, WorkerConfig, WorkerEvent } from "./matrix";

/** A request the ledger never answered: fetch's network failure, as when the server died holding the answer. */
function unreachable(error: unknown): error is TypeError {
  return error instanceof TypeError && error.message === "fetch failed";
}

/** Runs the agent to its end; `emit` must be synchronous, so each line is out before a SIGKILL that follows it. */
export async function runAgent(config: WorkerConfig, emit: (event: WorkerEvent) => void): Promise<void> {
  // A minute per ledger call: a server that holds its answers for a kill point must end in that kill, not a timeout.
  const client = new OpledgerClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, requestTimeoutMs: 60_000 });

  function stepReached(step: KillAt, operation: Operation, fence: number | null): void {
    emit({
      type: "step",
      step,
      operationId: operation.id,
      idempotencyKey: operation.idempotencyKey,
      phase: operation.phase,
      fence: fence ?? operation.fence ?? 0,
    });
    if (config.killAt === step) process.kill(process.pid, "SIGKILL");
    if (config.stopAt === step) process.kill(process.pid, "SIGSTOP");
  }

  const callProvider: CallProvider = async ({ idempotencyKey, signal }) => {
    const response = await fetch(config.callUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify(config.args),
      signal,
    });
    const body = (await response.json()) as { id?: string; error?: string };
    if (response.ok) return { ok: true, providerId: body.id, value: body };
    return { ok: false, error: { httpStatus: response.status, message: body.error } };
  };

  function run(): Promise<RunToolResult> {
    return runTool(config.tool, config.args, callProvider, {
      client,
      workerId: config.workerId,
      idempotencyKey: config.idempotencyKey,
      leaseMs: config.leaseMs,
      providerTimeoutMs: config.providerTimeoutMs,
      log: (line) => emit({ type: "log", line }),
      onStep: ({ step, operation, fence }) => stepReached(step, operation, fence),
    });
  }

  /**
   * What an agent runtime does when the gate says RECONCILE and the contract names a lookup: take the lease, ask the
   * provider by the operation's own key, and record the answer with its fence. Someone else (the server's sweep, a
   * person) may have settled it meanwhile; then their answer stands.
   */
  async function reconcileByLookup(operationId: string): Promise<Operation> {
    const contract = await client.getContract(config.tool);
    const template = contract.reconcile?.method === "lookup" ? contract.reconcile.urlTemplate : undefined;
    if (typeof template !== "string") throw new Error(`${config.tool} has no provider lookup to reconcile with`);
    const { fence, operation } = await client.claim(operationId, {
      workerId: config.workerId,
      leaseMs: config.leaseMs,
    });
    const current = operation ?? (await client.getOperation(operationId));
    const url = template.replace("{idempotencyKey}", encodeURIComponent(current.idempotencyKey));
    const response = await fetch(url, { headers: { accept: "application/json" } });
    const found = (await response.json()) as { id?: string; status?: string };
    if (response.status !== 200 && response.status !== 404) {
      throw new Error(`the lookup ${url} answered ${response.status}; nothing proven`);
    }
    stepReached("reconcile_looked_up", current, fence);
    const applied = response.status === 200 && found.status === "applied";
    try {
      return await client.reconcile(operationId, {
        fence,
        outcome: applied ? "applied" : "not_applied",
        ...(applied && found.id ? { providerId: found.id } : {}),
        evidence: { source: "provider_lookup", url, status: response.status, answer: found },
        reason: `lookup by key ${current.idempotencyKey} answered ${response.status}`,
      });
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "not_unknown") return client.getOperation(operationId);
      throw error;
    }
  }

  try {
    let result = await run();
    if (result.status === "needs_reconcile") {
      await reconcileByLookup(result.operation.id);
      // Run again with the same key: "applied" is answered from the ledger, "not applied" goes where the gate says.
      result = await run();
    }
    emit({
      type: "done",
      status: result.status,
      operationId: result.operation.id,
      phase: result.operation.phase,
      decision: result.decision.action,
    });
  } catch (error) {
    if (!unreachable(error)) throw error;
    const cause = error.cause;
    emit({ type: "unreachable", message: cause instanceof Error ? cause.message : String(cause) });
  }
}
