// One cell of a crash table: something dies in one window (a worker here; the server in server-case.ts), a recovery
// worker takes over, and the ledger's promises are checked.
import { expect, type APIRequestContext } from "@playwright/test";
import {
  api,
  expectJson,
  putContract,
  uniqueId,
  uniqueTool,
  type Api,
  type ApiResult,
  type OperationDetail,
  type Operation,
} from "../fixtures/api";
import {
  contractFor,
  expectedCalls,
  type ContractOptions,
  type CrashPoint,
  type CrashRow,
  type EffectClass,
  type WorkerConfig,
  type WorkerEvent,
} from "./matrix";
import type { CrashProvider } from "./provider";
import { describeExit, runWorker, startWorker, type WorkerExit, type WorkerProcess } from "./worker-process";
export { inPool } from "@/lib/ledger/in-pool";

/**
 * The dying worker's lease is short, so the recovery need not wait long (the e2e server's sweep runs every 200 ms),
 * yet long enough that heartbeats on a loaded 2-core machine keep it until the kill. The recovery worker, which is
 * not killed, keeps a comfortable one.
 */
export const DOOMED_LEASE_MS = 4000;
const RECOVERY_LEASE_MS = 20_000;
/** How long a worker waits for the provider; short only where the harness loses the answer on purpose. */
export const PROVIDER_TIMEOUT_MS = 10_000;
export const LOST_ANSWER_TIMEOUT_MS = 1500;
/** What the approving person types as `actor`: display text, ignored; the key's person is recorded by id. */
export const PERSON = "on-call (crash harness)";

export interface CaseResult {
  row: CrashRow;
  effect: EffectClass;
  operationId: string;
  /** What died (or stalled) in the window. */
  killedBy: "worker" | "provider" | "server" | "worker, then the server" | "stalled worker";
  /** Where the operation stood once the dead worker's lease had run out (and the sweep had run). */
  afterCrash: { phase: string; decision: string };
  deadFence: number;
  finalFence: number;
  /** What the API answered the dead worker's fence on dispatch, outcome and heartbeat. */
  staleAnswers: string[];
  lookupsByKey: number;
  workers: number;
  approvals: number;
  final: { phase: string; evidence: string; attempt: number };
  effects: number;
  calls: number;
  auditEvents: number;
  /** How the stalled worker's run ended once it went on (the lease take-over race only). */
  stalledRun: string | null;
  seconds: number;
}

export interface CaseContext {
  /** Requests to the server the case runs against (its baseURL). */
  request: APIRequestContext;
  baseUrl: string;
  provider: CrashProvider;
  /** Whether agents that nothing kills run inside the spec's process rather than as worker processes. */
  inProcess: boolean;
  /** The workers' key: it plans, so only it may claim, dispatch and report the operation. */
  agentKey: string;
  /**
   * A key bound to a person (docs/authority.md#four-eyes-and-quorum): only a person may approve, and never the
   * principal who planned.
   */
  approver: { key: string; userId: string };
}

type StepEvent = Extract<WorkerEvent, { type: "step" }>;
type DoneEvent = Extract<WorkerEvent, { type: "done" }>;

function lastStep(exit: WorkerExit): StepEvent {
  const steps = exit.events.filter((e): e is StepEvent => e.type === "step");
  const last = steps.at(-1);
  if (!last) throw new Error(`the worker died before its first step:\n${describeExit(exit)}`);
  return last;
}

export function doneOf(exit: WorkerExit): DoneEvent {
  const done = exit.events.find((e): e is DoneEvent => e.type === "done");
  if (exit.code !== 0 || !done) throw new Error(`the recovery worker did not finish:\n${describeExit(exit)}`);
  return done;
}

export async function detail(client: Api, id: string): Promise<OperationDetail> {
  return expectJson(await client.getOp(id), 200);
}

/**
 * Waits until the dead worker's lease has run out and, if it died with a request in flight, the sweep made it UNKNOWN.
 */
async function waitForRecoverable(client: Api, id: string): Promise<OperationDetail> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const op = await detail(client, id);
    const leaseLeftMs = op.leaseExpiresAt === null ? 0 : Date.parse(op.leaseExpiresAt) - Date.now();
    if ((op.leaseExpiresAt === null || leaseLeftMs < 0) && op.phase !== "DISPATCHED") return op;
    if (Date.now() > deadline) throw new Error(`operation ${id} still ${op.phase}, lease until ${op.leaseExpiresAt}`);
    // Sleep out the lease, then look every few sweeps: the server has other cases to serve.
    await new Promise((resolve) => setTimeout(resolve, Math.max(leaseLeftMs, 0) + 300));
  }
}

/** The fields a stale worker must not be able to move. */
function guarded(op: Operation) {
  const { phase, attempt, fence, providerId, evidence, leaseOwner, approvedAttempt } = op;
  return { phase, attempt, fence, providerId, evidence, leaseOwner, approvedAttempt };
}

/** The API's answer to a call with the dead worker's fence; a 200 says what, if anything, it still moved. */
function answerOf(result: ApiResult, before: Operation, after: Operation): string {
  if (result.status !== 200)
    return `${result.status} ${(result.body as { code?: string } | undefined)?.code ?? ""}`.trim();
  return after.leaseExpiresAt !== before.leaseExpiresAt ? "200 (lease extended)" : "200 (no change)";
}

/**
 * What the gate may say once the dead worker's lease is over (the gate's table, lib/retry-gate/decide.ts).
 */
export function expectedAfterCrash(point: CrashPoint, effect: EffectClass): { phase: string; decision: string }[] {
  if (!point.ambiguous) {
    return [
      point.killAt === "reported"
        ? { phase: "CONFIRMED", decision: "STOP" }
        : { phase: "PLANNED", decision: "DISPATCH" },
    ];
  }
  // An unknown PURE outcome is just a failed attempt; every other class must prove what happened first.
  if (effect === "PURE") return [{ phase: "UNKNOWN", decision: "RETRY" }];
  const unknown = { phase: "UNKNOWN", decision: "RECONCILE" };
  // REPLAYABLE's contract lets the server's sweep look the effect up by itself: a found effect may be settled already.
  return effect === "REPLAYABLE" ? [unknown, { phase: "RECONCILED", decision: "STOP" }] : [unknown];
}

/** Every phase change is one audit row, with who and why, and the rows chain from PLANNED to where it is now. */
function expectAuditExplainsEverything(op: OperationDetail, approvals: number, approverId: string): void {
  const trail = op.audit;
  for (const event of trail) {
    expect(event.actorType, JSON.stringify(event)).toMatch(/^(user|api_key|system)$/);
    expect(event.actorId.length, JSON.stringify(event)).toBeGreaterThan(0);
    expect(event.reason?.length ?? 0, `${event.action} has a reason`).toBeGreaterThan(0);
  }
  const moves = trail.filter((e) => e.toPhase !== null && e.toPhase !== e.fromPhase);
  expect(moves[0]?.toPhase, "the trail starts with the plan").toBe("PLANNED");
  for (let i = 1; i < moves.length; i++) {
    const story = moves.map((m) => `${m.fromPhase}->${m.toPhase} (${m.action})`).join(", ");
    expect(moves[i]?.fromPhase, `no phase change is missing from the trail: ${story}`).toBe(moves[i - 1]?.toPhase);
  }
  expect(moves.at(-1)?.toPhase).toBe(op.phase);
  // Every attempt (first, retry, approved retry) was authorized by the gate with its reason, then dispatched.
  for (const attempt of op.attempts) {
    const authorized = trail.filter(
      (e) => e.action === "operation.authorized" && (e.data as { attempt?: number }).attempt === attempt.number,
    );
    const dispatched = trail.filter(
      (e) => e.action === "operation.dispatched" && (e.data as { attempt?: number }).attempt === attempt.number,
    );
    expect(authorized, `attempt ${attempt.number} authorized once`).toHaveLength(1);
    expect(dispatched, `attempt ${attempt.number} dispatched once`).toHaveLength(1);
  }
  const approved = trail.filter((e) => e.action === "operation.approved");
  expect(approved, "each approval the harness gave is in the trail").toHaveLength(approvals);
  for (const event of approved) expect(event.onBehalfOf, "the approver is named by user id").toBe(approverId);
}

/** A case before anything dies: its tool and contract, its key, and what every worker of it is told. */
export interface PreparedCase {
  tool: string;
  effect: EffectClass;
  idempotencyKey: string;
  startedAt: number;
  base: Omit<WorkerConfig, "workerId" | "killAt" | "leaseMs" | "providerTimeoutMs">;
}

export async function prepareCase(
  ctx: CaseContext,
  rowId: string,
  effect: EffectClass,
  contract: ContractOptions = {},
): Promise<PreparedCase> {
  const tool = uniqueTool(`crash.${effect.toLowerCase()}`);
  return prepareTool(ctx, tool, rowId, effect, contract);
}

/** As prepareCase, for a tool named beforehand (a server started to die for it must know its name). */
export async function prepareTool(
  ctx: CaseContext,
  tool: string,
  rowId: string,
  effect: EffectClass,
  contract: ContractOptions = {},
): Promise<PreparedCase> {
  await putContract(ctx.request, tool, contractFor(effect, ctx.provider.lookupTemplate(tool), contract));
  const idempotencyKey = uniqueId(`crash-${rowId}`);
  return {
    tool,
    effect,
    idempotencyKey,
    startedAt: Date.now(),
    base: {
      baseUrl: ctx.baseUrl,
      apiKey: ctx.agentKey,
      tool,
      effect,
      args: { case: `${rowId}/${effect}`, amountCents: 1200 },
      idempotencyKey,
      callUrl: ctx.provider.callUrl(tool, effect),
    },
  };
}

/** What a crash left: the operation, the fence of the run that died, and approvals already given. */
export interface Crash {
  operationId: string;
  deadFence: number;
  killedBy: CaseResult["killedBy"];
  approvals: number;
  /**
   * Lets a stalled worker go on at the same moment as the first recovery worker, which is started stopped at `planned`
   * for it: the two race. Resolves with how the stalled worker's run ended.
   */
  resume?: (recovery: WorkerProcess) => Promise<string>;
}

/** What a row promises for a class: where the gate stands once the dead run's lease is over, and the provider's calls. */
export interface Expectations {
  afterCrash: { phase: string; decision: string }[];
  ambiguous: boolean;
  calls: number;
}

/** The worker that dies at the boundary: SIGKILLed by itself, or by the provider right after it committed. */
export async function doomedWorker(
  ctx: CaseContext,
  prepared: PreparedCase,
  killAt: CrashPoint["killAt"],
  leaseMs = DOOMED_LEASE_MS,
): Promise<Crash> {
  const { provider } = ctx;
  const { idempotencyKey } = prepared;
  const killedBy = killAt === "provider_committed" ? "provider" : "worker";
  const doomed = startWorker({
    ...prepared.base,
    workerId: uniqueId("doomed"),
    leaseMs,
    providerTimeoutMs: killAt === "reconcile_looked_up" ? LOST_ANSWER_TIMEOUT_MS : PROVIDER_TIMEOUT_MS,
    killAt: killedBy === "worker" ? killAt : null,
  });
  if (killAt === "provider_committed") provider.arm(idempotencyKey, { kind: "kill_after_commit", pid: doomed.pid });
  if (killAt === "reconcile_looked_up") provider.arm(idempotencyKey, { kind: "lose_answer" });
  const died = await doomed.exit;
  // A hang the harness ended at its deadline is also a SIGKILL: only the window itself counts.
  expect(died.timedOut, `the worker hung instead of dying at ${killAt}:\n${describeExit(died)}`).toBe(false);
  expect(died.signal, `the worker must die by SIGKILL:\n${describeExit(died)}`).toBe("SIGKILL");
  const last = lastStep(died);
  if (killedBy === "provider") expect(provider.killed, "the provider killed the worker").toContain(idempotencyKey);
  else expect(last.step, `the worker died at its kill point:\n${describeExit(died)}`).toBe(killAt);
  expect(last.idempotencyKey).toBe(idempotencyKey);
  return { operationId: last.operationId, deadFence: last.fence, killedBy, approvals: 0 };
}

export async function runCrashCase(ctx: CaseContext, point: CrashPoint, effect: EffectClass): Promise<CaseResult> {
  const prepared = await prepareCase(ctx, point.id, effect);
  const crash = await doomedWorker(ctx, prepared, point.killAt);
  return recoverAndCheck(ctx, prepared, crash, point, {
    afterCrash: expectedAfterCrash(point, effect),
    ambiguous: point.ambiguous,
    calls: expectedCalls(point, effect),
  });
}

/** After the crash: the recovery worker takes over with the same key, then every promise of the ledger is checked. */
export async function recoverAndCheck(
  ctx: CaseContext,
  prepared: PreparedCase,
  crash: Crash,
  row: CrashRow,
  expected: Expectations,
): Promise<CaseResult> {
  const { request, provider, agentKey, approver } = ctx;
  const { tool, effect, idempotencyKey, startedAt } = prepared;
  const { operationId, deadFence, killedBy } = crash;
  // Reads with the bootstrap key (it reads every operation); the dead worker's fence is tried with the workers' key,
  // whose operation it is (any other key gets 404); approvals with a person's key.
  const client = api(request);
  const worker = api(request, agentKey);
  const person = api(request, approver.key);

  // 2. Its lease runs out; a request that may have left becomes UNKNOWN by the sweep. The gate says what next.
  const recoverable = await waitForRecoverable(client, operationId);
  const afterCrash = { phase: recoverable.phase, decision: recoverable.decision.action };
  expect(expected.afterCrash, recoverable.decision.reason).toContainEqual(afterCrash);

  // 3. The recovery worker, with the SAME key; a person approves when the gate hands the operation to one, and the
  // recovery worker is started again (same worker id: it may take its own lease back at once).
  const recovery: WorkerConfig = {
    ...prepared.base,
    baseUrl: ctx.baseUrl,
    workerId: uniqueId("recovery"),
    leaseMs: RECOVERY_LEASE_MS,
    providerTimeoutMs: PROVIDER_TIMEOUT_MS,
    killAt: null,
  };
  let workers = 1;
  let approvals = crash.approvals;
  let done: DoneEvent;
  let stalledRun: Promise<string> | null = null;
  for (;;) {
    let exit: WorkerExit;
    if (workers === 1 && crash.resume) {
      const racer = startWorker({ ...recovery, stopAt: "planned" });
      stalledRun = crash.resume(racer);
      exit = await racer.exit;
    } else {
      exit = await runWorker(recovery, ctx.inProcess);
    }
    workers++;
    done = doneOf(exit);
    expect(done.operationId, "the recovery found the same operation by its key").toBe(operationId);
    if (done.status !== "needs_approval" || approvals > crash.approvals) break;
    const approved = await person.approve(operationId, {
      actor: PERSON,
      reason: "the lookup proved the first attempt had no effect; one more attempt is fine",
    });
    expectJson(approved, 200);
    approvals++;
  }
  expect(done.status, `recovery ended ${done.phase} with ${done.decision}`).toBe("confirmed");

  // 4. The dead worker's fence can no longer change anything.
  const before = await detail(client, operationId);
  const staleAnswers: string[] = [];
  let seen: Operation = before;
  for (const probe of [
    () => worker.dispatch(operationId, { fence: deadFence }),
    () => worker.outcome(operationId, { fence: deadFence, result: "confirmed", providerId: "forged_by_stale_worker" }),
    () => worker.heartbeat(operationId, { fence: deadFence, leaseMs: 60_000 }),
  ]) {
    const answer = await probe();
    const now = await detail(client, operationId);
    staleAnswers.push(answerOf(answer, seen, now));
    seen = now;
  }
  const final = await detail(client, operationId);
  expect(guarded(final), "a stale worker changed the operation").toEqual(guarded(before));
  if (before.fence > deadFence) {
    expect(staleAnswers, "every call with the taken-over fence is refused as stale").toEqual([
      "409 stale_fence",
      "409 stale_fence",
      "409 stale_fence",
    ]);
  }

  // 5. One identity, one key, at the ledger and at the provider.
  const listed = expectJson(await client.list({ tool }), 200);
  expect(listed.items.map((o) => [o.id, o.idempotencyKey])).toEqual([[operationId, idempotencyKey]]);
  const calls = provider.requestsOf(tool, "call");
  const lookups = provider.requestsOf(tool, "lookup");
  for (const r of [...calls, ...lookups])
    expect(r.idempotencyKey, "the provider only ever saw the original key").toBe(idempotencyKey);
  if (expected.ambiguous && effect !== "PURE")
    expect(lookups.length, "the provider was asked by the key").toBeGreaterThan(0);

  // 6. No duplicate effect is accepted as success: one effect (none for a read), whatever the crash, and no call the
  // gate should have stopped (counted call by call, so a repeat shows even where the provider deduplicates).
  const effects = provider.effectsOf(tool).length;
  expect(effects).toBe(effect === "PURE" ? 0 : 1);
  expect(calls.length, "calls the provider received").toBe(expected.calls);
  expect(["CONFIRMED", "RECONCILED"]).toContain(final.phase);
  if (final.phase === "RECONCILED") expect(final.evidence).toBe("applied");

  // 7. The audit trail explains every retry, stop and approval; an ambiguous crash shows as UNKNOWN, then evidence.
  expectAuditExplainsEverything(final, approvals, approver.userId);
  if (expected.ambiguous && effect !== "PURE") {
    const moves = final.audit.filter((e) => e.toPhase !== e.fromPhase).map((e) => `${e.fromPhase}->${e.toPhase}`);
    expect(moves, "the ambiguous outcome was stopped at UNKNOWN and settled by evidence").toContain(
      "UNKNOWN->RECONCILED",
    );
  }

  return {
    row,
    effect,
    operationId,
    killedBy,
    afterCrash,
    deadFence,
    finalFence: final.fence,
    staleAnswers,
    lookupsByKey: lookups.length,
    workers,
    approvals,
    final: { phase: final.phase, evidence: final.evidence, attempt: final.attempt },
    effects,
    calls: calls.length,
    auditEvents: final.audit.length,
    stalledRun: stalledRun ? await stalledRun : null,
    seconds: Math.round((Date.now() - startedAt) / 100) / 10,
  };
}
