// A worker process of the crash harness: runs one tool call with the executor, reconciles by lookup when the gate asks,
// and SIGKILLs itself at the boundary it is told.
import { writeSync } from "node:fs";
import { ApiProblem, OpledgerClient, type Operation } from "../../lib/executor/client";
import { runTool, type CallProvider, type RunToolResult } from "../../lib/executor/run-tool";
import type { KillAt, WorkerConfig, WorkerEvent } from "./matrix";

const config = JSON.parse(process.argv[2] ?? "{}") as WorkerConfig;
const client = new OpledgerClient({ baseUrl: config.baseUrl, apiKey: config.apiKey });

/** Synchronous, so the line is in the pipe before a SIGKILL that follows it. */
function emit(event: WorkerEvent): void {
  writeSync(1, `${JSON.stringify(event)}\n`);
}

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
  const { fence, operation } = await client.claim(operationId, { workerId: config.workerId, leaseMs: config.leaseMs });
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

async function main(): Promise<void> {
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
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
