// The crash matrix: the boundaries a worker is killed at, the effect classes, their contracts, and what a worker
// process is told.
import type { ReconcileRule } from "@/lib/platform/wire/answers";
import type { ContractInput } from "../fixtures/api";

export const EFFECT_CLASSES = ["PURE", "IDEMPOTENT", "REPLAYABLE", "UNKNOWN", "NON_RETRYABLE"] as const;
export type EffectClass = (typeof EFFECT_CLASSES)[number];

/**
 * Where a worker dies: at one of runTool's steps (onStep), in the provider after it committed, or mid-reconciliation.
 */
export type KillAt = "planned" | "claimed" | "dispatched" | "provider_committed" | "reported" | "reconcile_looked_up";

/** One row of a crash table: a window in which something dies. */
export interface CrashRow {
  id: string;
  /** The words. */
  title: string;
  /** Whether the request may have reached the provider when the crash came: only evidence may settle it then. */
  ambiguous: boolean;
  /** How the window maps onto the real API calls, for the table's legend. */
  mapping: string;
}

export interface CrashPoint extends CrashRow {
  killAt: KillAt;
}

export const CRASH_POINTS: CrashPoint[] = [
  {
    id: "before_request",
    title: "before the request is built",
    killAt: "planned",
    ambiguous: false,
    mapping:
      "runTool's `planned` step: POST /operations answered (the operation and its key are durable, PLANNED), no " +
      "lease claimed, nothing built or sent.",
  },
  {
    id: "after_authorization",
    title: "after authorization, before dispatch",
    killAt: "claimed",
    ambiguous: false,
    mapping:
      "runTool's `claimed` step: the worker holds the lease (fence 1), the operation is still PLANNED, POST " +
      "/dispatch not sent. The ledger has no committed AUTHORIZED state: dispatch moves PLANNED → AUTHORIZED → " +
      "DISPATCHED in one transaction, so holding the lease is the last point before it.",
  },
  {
    id: "after_dispatch",
    title: "immediately after dispatch",
    killAt: "dispatched",
    ambiguous: true,
    mapping:
      "runTool's `dispatched` step: POST /dispatch answered (DISPATCHED, attempt 1), the provider not called " +
      "yet. The ledger cannot tell this from a lost answer.",
  },
  {
    id: "after_provider_commit",
    title: "after the provider commits, before the response is read",
    killAt: "provider_committed",
    ambiguous: true,
    mapping:
      "The provider applies the effect, then SIGKILLs the worker (it was told the pid) before writing a byte of the answer.",
  },
  {
    id: "after_response_stored",
    title: "after the response is stored, before the agent continues",
    killAt: "reported",
    ambiguous: false,
    mapping: "runTool's `reported` step: POST /outcome answered (CONFIRMED stored), runTool has not returned.",
  },
  {
    id: "during_reconciliation",
    title: "during reconciliation",
    killAt: "reconcile_looked_up",
    ambiguous: true,
    mapping:
      "The provider commits and the answer is lost, runTool reports `unknown` (UNKNOWN, gate RECONCILE); the " +
      "worker then reconciles itself: claims the lease, looks the effect up by the original key (applied), and " +
      "is killed before POST /reconcile. The server's own auto-reconcile is killed mid-lookup in the " +
      "server-side table (`auto_reconcile_lookup`).",
  },
];

/** Which cells cannot exist in this architecture, and why (the table says so instead of faking them). */
export function notApplicable(row: CrashRow, effect: EffectClass): string | null {
  if (row.id === "during_reconciliation" && effect === "PURE") {
    return "n/a: an unknown PURE outcome is retried by the gate, never reconciled";
  }
  return null;
}

/**
 * Calls the provider must have seen: one, except for a PURE read whose first call was sent and never reported, which
 * the gate simply sends again. The provider counts every call, so a repeat shows even where IDEMPOTENT deduplicates.
 */
export function expectedCalls(point: CrashPoint, effect: EffectClass): number {
  const unreported = point.killAt === "provider_committed" || point.killAt === "reconcile_looked_up";
  return effect === "PURE" && unreported ? 2 : 1;
}

export interface ContractOptions {
  /** Whether the server's sweep may look the effect up by itself (default: REPLAYABLE only, as in the demo). */
  auto?: boolean;
  approval?: ContractInput["approval"];
}

/**
 * One realistic contract per class, in the spirit of lib/demo/contracts.ts, each with a provider lookup by key except
 * PURE (nothing to look up).
 */
export function contractFor(effect: EffectClass, lookupTemplate: string, options: ContractOptions = {}): ContractInput {
  const auto = options.auto ?? effect === "REPLAYABLE";
  const lookup: ReconcileRule = {
    method: "lookup",
    urlTemplate: lookupTemplate,
    timeoutMs: 2000,
    providerIdField: "id",
    statusField: "status",
    appliedValues: ["applied"],
    auto,
  };
  const base = { approval: options.approval ?? "not_required", maxAttempts: 3, backoff: { baseMs: 50, maxMs: 100 } };
  switch (effect) {
    case "PURE":
      return { ...base, effect, idempotencyKey: "optional", reconcile: null, description: "crash harness: a search" };
    case "IDEMPOTENT":
      return {
        ...base,
        effect,
        idempotencyKey: "required",
        reconcile: lookup,
        keyRetentionMs: 24 * 60 * 60 * 1000,
        description: "crash harness: a charge, deduplicated by its key for 24 h",
      };
    case "REPLAYABLE":
      return {
        ...base,
        effect,
        idempotencyKey: "required",
        reconcile: lookup,
        description: "crash harness: a release, looked up by client token",
      };
    case "UNKNOWN":
      return {
        ...base,
        effect,
        idempotencyKey: "optional",
        reconcile: lookup,
        description: "crash harness: a CRM update whose retry behaviour nobody vouches for",
      };
    case "NON_RETRYABLE":
      return {
        ...base,
        effect,
        idempotencyKey: "optional",
        reconcile: lookup,
        description: "crash harness: a wire transfer; a repeat is a second transfer",
      };
  }
}

/** What the spec tells a worker process (JSON in argv[2]). */
export interface WorkerConfig {
  baseUrl: string;
  apiKey: string;
  workerId: string;
  tool: string;
  effect: EffectClass;
  args: Record<string, unknown>;
  idempotencyKey: string;
  callUrl: string;
  leaseMs: number;
  providerTimeoutMs: number;
  /** Where this worker SIGKILLs itself; null for a recovery worker (the provider kills at provider_committed). */
  killAt: KillAt | null;
  /** Where this worker SIGSTOPs itself, stalled until the spec sends SIGCONT (a paused process, not a dead one). */
  stopAt?: KillAt;
}

/** One line a worker writes to stdout per event, before it goes on (or dies). */
export type WorkerEvent =
  | { type: "step"; step: string; operationId: string; idempotencyKey: string; phase: string; fence: number }
  | { type: "log"; line: string }
  /** The ledger stopped answering mid-run (its server died): what an agent sees before it runs the call again. */
  | { type: "unreachable"; message: string }
  | { type: "done"; status: string; operationId: string; phase: string; decision: string };
