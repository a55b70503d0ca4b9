// The world around the ledger in model-based tests: tools per effect class, a provider that applies effects, what
// callers were told, and the invariants checked at the end of a run.
import { expect } from "vitest";
import type { Ledger } from "@/lib/ledger/ledger";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError, type LedgerErrorCode } from "@/lib/ledger/errors";
import type { OutcomeInput } from "@/lib/ledger/commands/outcome";
import { isLegalTransition } from "@/lib/retry-gate/phases";
import type { EffectClass, Phase } from "@/lib/retry-gate/types";
import { alice, contractFor, T0 } from "./ledger-fixtures";
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
}

/** What the provider applied, and what the ledger told each caller. */
export interface World {
  ledger: Ledger;
  now: number;
  ops: ModelOperation[];
  /** Effects the provider applied, per operation, with the key each request carried. */
  effects: Map<string, string[]>;
  /** Keys an IDEMPOTENT provider has seen: a repeat converges to the first result. */
  seenKeys: Set<string>;
  /** The fence each worker holds per operation (`worker:id`). */
  fences: Map<string, number>;
  /** Highest fence the ledger ever issued per operation. */
  issued: Map<string, number>;
  /** Attempts granted by a person, per operation. */
  approvals: Map<string, number>;
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
}

export const at = (w: World): Date => new Date(w.now);
export const fenceKey = (worker: string, id: string): string => `${worker}:${id}`;
export const pick = <T>(items: T[], index: number): T | undefined =>
  items.length === 0 ? undefined : items[index % items.length];
const bump = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1);

export function newWorld(ledger: Ledger): World {
  return {
    ledger,
    now: T0.getTime(),
    ops: [],
    effects: new Map(),
    seenKeys: new Set(),
    fences: new Map(),
    issued: new Map(),
    approvals: new Map(),
    contractVersions: new Map(TOOL_NAMES.map((tool) => [tool, 1])),
    staleRefusals: new Map(),
    outcomes: [],
    dispatches: [],
    granted: new Map(),
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

export function recordGrant(w: World, id: string, worker: string, fence: number): void {
  w.granted.set(id, [...(w.granted.get(id) ?? []), fence]);
  w.fences.set(fenceKey(worker, id), fence);
}

export function recordApproval(w: World, id: string): void {
  bump(w.approvals, id);
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
  key: string,
  behaviour: Behaviour,
): Omit<OutcomeInput, "fence"> | null {
  const applied = behaviour === "confirm" || behaviour.endsWith("_applied");
  if (applied && !(TOOLS[op.tool] === "IDEMPOTENT" && w.seenKeys.has(`${op.tool}:${key}`))) {
    w.effects.set(op.id, [...(w.effects.get(op.id) ?? []), key]);
  }
  if (applied) w.seenKeys.add(`${op.tool}:${key}`);
  const report = REPORT[behaviour];
  return report && report.result === "confirmed" ? { ...report, providerId: `p-${op.id}` } : report;
}

/**
 * A contract edit: the same class with another budget and approval rule, so later plans run under a different version.
 */
export function editedContract(tool: string, maxAttempts: number, approval: boolean) {
  return contractFor(TOOLS[tool] ?? "PURE", {
    idempotencyKey: "required",
    maxAttempts,
    approval: approval ? "required" : "not_required",
    backoff: { baseMs: 0, maxMs: 0 },
  });
}

export async function freshLedger(): Promise<TestDb> {
  const t = await createTestDb();
  for (const tool of TOOL_NAMES) await putContract(t.ledger, tool, editedContract(tool, 3, false), alice, T0);
  return t;
}

/** The replayable seed: OPLEDGER_MODEL_SEED, or a new one, logged either way. */
export function modelSeed(name: string): number {
  const seed = Number(process.env.OPLEDGER_MODEL_SEED ?? Date.now() % 2_147_483_647);
  process.stdout.write(`${name} seed: ${seed} (replay with OPLEDGER_MODEL_SEED=${seed})\n`);
  return seed;
}

export function modelRuns(fallback: number): number {
  return Number(process.env.OPLEDGER_MODEL_RUNS ?? fallback);
}

export async function checkInvariants(w: World): Promise<void> {
  for (const op of w.ops) {
    const effects = w.effects.get(op.id) ?? [];
    // Every request carried the operation's one key.
    expect(new Set(effects).size).toBeLessThanOrEqual(1);
    if (TOOLS[op.tool] !== "PURE") {
      const approvals = w.approvals.get(op.id) ?? 0;
      expect(
        effects.length,
        `${op.tool} ${op.id} applied ${effects.length} times with ${approvals} approvals`,
      ).toBeLessThanOrEqual(1 + approvals);
    }
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
    }
    expect(phase).toBe(row.phase);
  }
}
