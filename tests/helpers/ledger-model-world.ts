// The world around the ledger in model-based tests: tools per effect class, a provider that applies effects, what
// callers were told, and the invariants checked at the end of a run.
import fc from "fast-check";
import { expect } from "vitest";
import type { AuditEvent, Operation } from "@/lib/platform/generated/prisma/client";
import { principalId, type Actor } from "@/lib/ledger/actor";
import type { Ledger } from "@/lib/ledger/ledger";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError, type LedgerErrorCode } from "@/lib/ledger/errors";
import type { OutcomeInput } from "@/lib/ledger/commands/outcome";
import { isLegalTransition } from "@/lib/retry-gate/phases";
import type { EffectClass, GateContract, Phase } from "@/lib/retry-gate/types";
import { alice, contractFor, T0 } from "./ledger-fixtures";
import {
  AGENT_KEY_IDS,
  approvalHistory,
  rowApprovers,
  type ApprovalHistory,
  type ApprovalRules,
} from "./ledger-model-authority";
import type { Coverage } from "./ledger-model-coverage";
import { personMustGrant } from "./ledger-model-gate";
import { createTestDb, type TestDb } from "./test-db";

export const TOOLS: Record<string, EffectClass> = {
  "m.pure": "PURE",
  "m.idem": "IDEMPOTENT",
  "m.replay": "REPLAYABLE",
  "m.unknown": "UNKNOWN",
  "m.nonretry": "NON_RETRYABLE",
};
export const TOOL_NAMES = Object.keys(TOOLS);

export interface ModelOperation {
  id: string;
  tool: string;
  key: string;
  args: number;
  /** The contract version the ledger planned it under; it must never change. */
  contractVersion: number;
  /** The key that planned it: the only one that may drive it. */
  planner: Actor;
}

/** What the provider applied, and what the ledger told each caller. */
export interface World {
  ledger: Ledger;
  now: number;
  ops: ModelOperation[];
  /** Effects the provider applied, per operation, with the key and the attempt number each request carried. */
  effects: Map<string, { key: string; attempt: number }[]>;
  /** Keys an IDEMPOTENT provider has seen: a repeat converges to the first result. */
  seenKeys: Set<string>;
  /** The fence each worker holds per operation (`worker:id`). */
  fences: Map<string, number>;
  /** Highest fence the ledger ever issued per operation. */
  issued: Map<string, number>;
  /** The attempt numbers a person granted, per operation (the quorum's last approval grants the next attempt). */
  personGrants: Map<string, number[]>;
  /** The current contract version per tool, as the model knows it. */
  contractVersions: Map<string, number>;
  /** Stale fences refused per operation: each refusal must be audited. */
  staleRefusals: Map<string, number>;
  /** Outcomes the ledger acknowledged: each must be on its attempt afterwards. */
  outcomes: { id: string; attempt: number; result: OutcomeInput["result"]; fence: number }[];
  /** Dispatches the ledger acknowledged: each attempt went out under the fence of the worker that held it. */
  dispatches: { id: string; attempt: number; fence: number; worker: string }[];
  /** Fences the ledger granted, per operation: never the same one twice. */
  granted: Map<string, number[]>;
  /** OPLEDGER_FOUR_EYES for this run: the approvals are asked for with it. */
  fourEyes: boolean;
  /** Each contract version (`tool@version`) as the model put it: the budget, the approval flag and rules. */
  contracts: Map<string, ContractEdit>;
  /** Counts what the runs of one test reached, across all its runs. */
  coverage: Coverage;
}

export const at = (w: World): Date => new Date(w.now);
export const fenceKey = (worker: string, id: string): string => `${worker}:${id}`;
export const pick = <T>(items: T[], index: number): T | undefined =>
  items.length === 0 ? undefined : items[index % items.length];
/**
 * The operation at `index` among those in `phase` (a person looks at the queue that waits for them), or among all when
 * `phase` is null or none is in it.
 */
export async function pickIn(w: World, index: number, phase: Phase | null): Promise<ModelOperation | undefined> {
  if (phase === null) return pick(w.ops, index);
  const rows = await w.ledger.db.operation.findMany({
    where: { id: { in: w.ops.map((o) => o.id) }, phase },
    select: { id: true },
  });
  const queue = w.ops.filter((o) => rows.some((r) => r.id === o.id));
  return pick(queue.length > 0 ? queue : w.ops, index);
}
const bump = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1);

/** What a contract edit changes: the budget, whether a person approves first, and the approval rules. */
export interface ContractEdit extends ApprovalRules {
  maxAttempts: number;
  approval: boolean;
}

/** A run's start: OPLEDGER_FOUR_EYES, and each tool's first contract. */
export interface RunSetup {
  fourEyes: boolean;
  contracts: Record<string, ContractEdit>;
}

// A short approvalTtlMs (1-10 s) now and then, so requests expire between the Advance steps; a quorum of two sometimes.
const shortTtl = fc.integer({ min: 1000, max: 10_000 });
const approvalRules = {
  approvalTtlMs: fc.oneof(fc.constant(null), shortTtl),
  approvals: fc.constantFrom(1, 1, 2),
};
export const contractEdit: fc.Arbitrary<ContractEdit> = fc.record({
  maxAttempts: fc.constantFrom(1, 3),
  approval: fc.boolean(),
  ...approvalRules,
});
/**
 * Four-eyes is on in most runs (off, a team of one may approve its own key's requests); a third of the tools start
 * behind a person's approval, mostly with a short deadline, so approvals, quorums and expiries happen in most runs, not
 * only after a contract edit.
 */
export const runSetup: fc.Arbitrary<RunSetup> = fc.record({
  fourEyes: fc.constantFrom(true, true, true, false),
  contracts: fc.record(
    Object.fromEntries(
      TOOL_NAMES.map((tool) => [
        tool,
        fc.record({
          maxAttempts: fc.constant(3),
          approval: fc.constantFrom(false, false, true),
          approvalTtlMs: fc.oneof(fc.constant(null), shortTtl, shortTtl),
          approvals: approvalRules.approvals,
        }),
      ]),
    ),
  ),
});

export function newWorld(ledger: Ledger, setup: RunSetup, coverage: Coverage): World {
  return {
    ledger,
    now: T0.getTime(),
    ops: [],
    effects: new Map(),
    seenKeys: new Set(),
    fences: new Map(),
    issued: new Map(),
    personGrants: new Map(),
    contractVersions: new Map(TOOL_NAMES.map((tool) => [tool, 1])),
    staleRefusals: new Map(),
    outcomes: [],
    dispatches: [],
    granted: new Map(),
    fourEyes: setup.fourEyes,
    contracts: new Map(TOOL_NAMES.map((tool) => [`${tool}@1`, firstContract(setup, tool)])),
    coverage,
  };
}

/**
 * Resolves true when the call succeeded, false when the ledger refused it with one of the `allowed` codes (a stale
 * fence is counted).
 */
export async function settle(
  w: World,
  id: string | null,
  p: Promise<unknown>,
  allowed: LedgerErrorCode[],
): Promise<boolean> {
  try {
    await p;
    return true;
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    expect(allowed, error.message).toContain(error.code);
    if (error.code === "stale_fence" && id) bump(w.staleRefusals, id);
    return false;
  }
}

/** How a call ended: the ledger's refusal code, or what the caller makes of the answer. */
export async function answerOf<T>(p: Promise<T>, answered: (value: T) => string): Promise<string> {
  try {
    return answered(await p);
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return error.code;
  }
}

/** A refused command changed nothing: the same row version and no new audit record. */
export async function expectUnchanged(
  w: World,
  op: ModelOperation,
  before: { row: Pick<Operation, "version">; auditCount: number },
  what: string,
): Promise<void> {
  const row = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
  const auditCount = await w.ledger.db.auditEvent.count({ where: { subjectType: "operation", subjectId: op.id } });
  expect([row.version, auditCount], `${what} changed nothing`).toEqual([before.row.version, before.auditCount]);
}

export function recordGrant(w: World, id: string, worker: string, fence: number): void {
  w.granted.set(id, [...(w.granted.get(id) ?? []), fence]);
  w.fences.set(fenceKey(worker, id), fence);
}

/** A person granted `attempt` (the quorum's last approval, or a retry approved with a reconciliation). */
export function recordApproval(w: World, id: string, attempt: number): void {
  w.personGrants.set(id, [...(w.personGrants.get(id) ?? []), attempt]);
}

/** The contract version an operation runs under (the one it was planned under), as the model put it. */
export function rulesOf(w: World, op: Pick<ModelOperation, "tool" | "contractVersion">): ContractEdit {
  const rules = w.contracts.get(`${op.tool}@${op.contractVersion}`);
  if (!rules) throw new Error(`the model never put ${op.tool} version ${op.contractVersion}`);
  return rules;
}

/** The contract the gate reads for an operation, built from the body the model put, not from what the ledger read. */
export function gateContractOf(w: World, op: Pick<ModelOperation, "tool" | "contractVersion">): GateContract {
  const body = editedContract(op.tool, rulesOf(w, op));
  return {
    effect: body.effect,
    approval: body.approval,
    maxAttempts: body.maxAttempts,
    backoff: body.backoff,
    keyRetentionMs: body.keyRetentionMs,
    approvalTtlMs: body.approvalTtlMs ?? null,
  };
}

/** Dispatch as the operation's planning key, as the API answers it: the dispatched operation, or the refusal thrown. */
export async function dispatchAs(w: World, op: ModelOperation, fence: number) {
  const result = await dispatchOperation(w.ledger, op.id, { fence }, op.planner, at(w));
  if ("refused" in result) throw result.refused;
  return result.operation;
}

export interface ApprovalState {
  row: Operation;
  /** The operation's audit records in chain order. */
  trail: AuditEvent[];
  history: ApprovalHistory;
  auditCount: number;
}

/** The operation's row and what its audit trail says about approvals (checked on the way). */
export async function approvalState(w: World, op: ModelOperation): Promise<ApprovalState> {
  const row = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
  const trail = await w.ledger.db.auditEvent.findMany({
    where: { subjectType: "operation", subjectId: op.id },
    orderBy: { seq: "asc" },
  });
  return { row, trail, history: approvalHistory(trail, rulesOf(w, op), w.fourEyes), auditCount: trail.length };
}

/**
 * What the provider did with an attempt; "transient_applied" is a 5xx sent after the effect was committed (it happens).
 */
export type Behaviour =
  | "confirm"
  | "transient"
  | "transient_applied"
  | "fatal"
  | "unknown_applied"
  | "unknown_not"
  | "crash_applied"
  | "crash_not";
export const BEHAVIOURS: Behaviour[] = [
  "confirm",
  "transient",
  "transient_applied",
  "fatal",
  "unknown_applied",
  "unknown_not",
  "crash_applied",
  "crash_not",
];

const REPORT: Record<Behaviour, Omit<OutcomeInput, "fence"> | null> = {
  confirm: { result: "confirmed" },
  transient: { result: "failed", error: { httpStatus: 503 } },
  transient_applied: { result: "failed", error: { httpStatus: 504 } },
  fatal: { result: "failed", error: { httpStatus: 422 } },
  unknown_applied: { result: "unknown", error: { kind: "timeout" } },
  unknown_not: { result: "unknown", error: { kind: "timeout" } },
  crash_applied: null,
  crash_not: null,
};

/** The request reaches the provider (or not); returns what the worker would report, or null when it crashed. */
export function sendToProvider(
  w: World,
  op: ModelOperation,
  sent: { key: string; attempt: number },
  behaviour: Behaviour,
): Omit<OutcomeInput, "fence"> | null {
  const { key } = sent;
  const applied = behaviour === "confirm" || behaviour.endsWith("_applied");
  if (applied && !(TOOLS[op.tool] === "IDEMPOTENT" && w.seenKeys.has(`${op.tool}:${key}`))) {
    w.effects.set(op.id, [...(w.effects.get(op.id) ?? []), sent]);
  }
  if (applied) w.seenKeys.add(`${op.tool}:${key}`);
  const report = REPORT[behaviour];
  return report && report.result === "confirmed" ? { ...report, providerId: `p-${op.id}` } : report;
}

/**
 * A contract edit: the same class with another budget and approval rules, so later plans run under a different
 * version.
 */
export function editedContract(tool: string, edit: ContractEdit) {
  return contractFor(TOOLS[tool] ?? "PURE", {
    idempotencyKey: "required",
    maxAttempts: edit.maxAttempts,
    approval: edit.approval ? "required" : "not_required",
    backoff: { baseMs: 0, maxMs: 0 },
    approvalTtlMs: edit.approvalTtlMs,
    approvals: edit.approvals,
  });
}

/** An admin edits a contract; the model keeps the version as it put it. */
export async function editContract(w: World, tool: string, edit: ContractEdit) {
  const saved = await putContract(w.ledger, tool, editedContract(tool, edit), alice, at(w));
  w.contracts.set(`${tool}@${saved.contract.version}`, edit);
  return saved;
}

function firstContract(setup: RunSetup, tool: string): ContractEdit {
  return setup.contracts[tool] ?? { maxAttempts: 3, approval: false, approvals: 1, approvalTtlMs: null };
}

export async function freshLedger(setup: RunSetup): Promise<TestDb> {
  const t = await createTestDb();
  for (const tool of TOOL_NAMES) {
    await putContract(t.ledger, tool, editedContract(tool, firstContract(setup, tool)), alice, T0);
  }
  return t;
}

function positiveInteger(name: string): number | null {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return null;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not "${raw}"`);
  return value;
}

/** The replayable seed: OPLEDGER_MODEL_SEED, or a new one, logged either way. */
export function modelSeed(name: string): number {
  const seed = positiveInteger("OPLEDGER_MODEL_SEED") ?? Date.now() % 2_147_483_647;
  process.stdout.write(`${name} seed: ${seed} (replay with OPLEDGER_MODEL_SEED=${seed})\n`);
  return seed;
}

/** Runs per test: 100 in CI, OPLEDGER_MODEL_RUNS for a deeper search (`npm run test:deep` asks for 10,000). */
export function modelRuns(): number {
  return positiveInteger("OPLEDGER_MODEL_RUNS") ?? 100;
}

/**
 * A test's time limit for `runs` runs: a run takes about a second on PostgreSQL and up to three on a busy machine, and
 * shrinking a failure replays a few hundred more. At 100 runs on PostgreSQL, sharing two cores with another test file
 * and other work (load average 14 to 17), the test needed more than 300 s.
 */
export function modelTimeoutMs(runs: number): number {
  return Math.max(600_000, runs * 3_000);
}

/**
 * At most one effect per granted attempt: the ledger let each attempt number go once, every effect went out under one
 * of them, and an attempt that needs a person left only with a person's grant for exactly that attempt. So a tool that
 * requires approval has no effect a person did not grant, and any other non-PURE tool at most one (its first attempt,
 * or a retry the gate allows without a person, which a truthful reconciliation licenses only when nothing happened).
 */
function checkEffects(w: World, op: ModelOperation): void {
  const effects = w.effects.get(op.id) ?? [];
  const sent = w.dispatches.filter((d) => d.id === op.id).map((d) => d.attempt);
  const grants = w.personGrants.get(op.id) ?? [];
  const contract = gateContractOf(w, op);
  const label = `${op.tool} ${op.id} (approval ${contract.approval}, budget ${contract.maxAttempts})`;
  // Every request carried the operation's one key.
  expect(new Set(effects.map((e) => e.key)).size).toBeLessThanOrEqual(1);
  expect(
    [...sent].sort((a, b) => a - b),
    `${label}: attempts the ledger let go`,
  ).toEqual(sent.map((_, i) => i + 1));
  expect(new Set(grants).size, `${label}: attempts persons granted: ${grants.join(", ")}`).toBe(grants.length);
  const applied = effects.map((e) => e.attempt);
  expect(new Set(applied).size, `${label}: effects per attempt: ${applied.join(", ")}`).toBe(applied.length);
  for (const n of applied) expect(sent, `${label}: an effect under attempt ${n}, never let go`).toContain(n);
  for (const n of sent.filter((attempt) => personMustGrant(contract, attempt))) {
    expect(grants, `${label}: attempt ${n} left without a person's grant for it`).toContain(n);
  }
  if (contract.effect !== "PURE") {
    const ungranted = applied.filter((n) => !grants.includes(n));
    expect(
      ungranted.length,
      `${label}: effects no person granted, under attempts ${ungranted.join(", ")}`,
    ).toBeLessThanOrEqual(contract.approval === "required" ? 0 : 1);
  }
}

export async function checkInvariants(w: World): Promise<void> {
  for (const op of w.ops) {
    checkEffects(w, op);
    const row = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
    expect(row.contractVersion, `${op.id} keeps the contract version it was planned under`).toBe(op.contractVersion);
    const attempts = await w.ledger.db.attempt.findMany({ where: { operationId: op.id }, orderBy: { number: "asc" } });
    expect(attempts.filter((a) => a.result === "confirmed").length).toBeLessThanOrEqual(1);
    // Attempts go out under fences that never go back.
    expect(attempts.map((a) => a.fence)).toEqual([...attempts.map((a) => a.fence)].sort((x, y) => x - y));
    const granted = w.granted.get(op.id) ?? [];
    expect(new Set(granted).size, `fences granted on ${op.id}: ${granted.join(", ")}`).toBe(granted.length);
    for (const sent of w.dispatches.filter((d) => d.id === op.id)) {
      const attempt = attempts.find((a) => a.number === sent.attempt);
      expect([attempt?.fence, attempt?.workerId], `attempt ${sent.attempt} on ${op.id}`).toEqual([
        sent.fence,
        sent.worker,
      ]);
    }
    for (const told of w.outcomes.filter((o) => o.id === op.id)) {
      const attempt = attempts.find((a) => a.number === told.attempt);
      expect(
        [attempt?.result, attempt?.fence],
        `acknowledged ${told.result} of attempt ${told.attempt} on ${op.id}`,
      ).toEqual([told.result, told.fence]);
    }
    const staleAudits = await w.ledger.db.auditEvent.count({
      where: { subjectType: "operation", subjectId: op.id, action: "operation.stale_fence_rejected" },
    });
    expect(staleAudits, `stale fences refused on ${op.id} are all audited`).toBe(w.staleRefusals.get(op.id) ?? 0);
    const trail = await w.ledger.db.auditEvent.findMany({
      where: { subjectType: "operation", subjectId: op.id, toPhase: { not: null } },
      orderBy: { id: "asc" },
    });
    let phase: Phase | null = null;
    for (const event of trail) {
      if (event.fromPhase === event.toPhase) continue;
      if (phase !== null) {
        expect(event.fromPhase).toBe(phase);
        expect(isLegalTransition(phase, event.toPhase as Phase), `${phase} -> ${event.toPhase}`).toBe(true);
      }
      phase = event.toPhase as Phase;
      w.coverage.count("phase", phase);
    }
    expect(phase).toBe(row.phase);
    checkAuthority(w, op, attempts, await approvalState(w, op));
  }
}

/** docs/authority.md at the level of principal ids, against what the row, the attempts and the audit trail say. */
function checkAuthority(
  w: World,
  op: ModelOperation,
  attempts: { number: number }[],
  { row, trail, history }: ApprovalState,
): void {
  expect(history.planner, `the principal who planned ${op.id}`).toBe(principalId(op.planner));
  // Own operations: no agent key but the planner's ever wrote anything about it.
  const strangers = trail.filter((e) => AGENT_KEY_IDS.has(e.actorId) && e.actorId !== op.planner.id);
  expect(
    strangers.map((e) => `${e.action} by ${e.actorId}`),
    `other agent keys on ${op.id}`,
  ).toEqual([]);
  expect(history.grants, `attempts granted by persons on ${op.id}`).toBe(w.personGrants.get(op.id)?.length ?? 0);
  if (history.expiredAtAttempt !== null) {
    // EXPIRED is terminal and nothing was sent after it.
    expect([row.phase, row.attempt], `${op.id} expired at attempt ${history.expiredAtAttempt}`).toEqual([
      "EXPIRED",
      history.expiredAtAttempt,
    ]);
    expect(attempts.every((a) => a.number <= (history.expiredAtAttempt ?? 0))).toBe(true);
  }
  if (row.phase === "AWAITING_APPROVAL") {
    // The row's deadline and approvers are the request's, as its audit trail and contract version tell it.
    expect(history.wait, `${op.id} waits with no request in its trail`).not.toBeNull();
    expect(row.approvalExpiresAt?.getTime(), `deadline of ${op.id}`).toBe(history.wait?.deadline);
    expect(rowApprovers(row), `approvers of ${op.id}`).toEqual(history.wait?.approvers);
  }
}
