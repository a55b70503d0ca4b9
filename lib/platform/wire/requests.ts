// The agent API's request bodies and list query (docs/api.md), as a client writes them: one module that the server's
// zod schemas are checked against (lib/platform/wire/wire.test.ts) and that the client SDK (lib/executor) and the e2e specs
// import. Pure types, like lib/platform/wire/answers.ts.
import type { EffectClass, ErrorRule, Phase, ToolErrorMeaning } from "../../retry-gate/types";
import type { ReconcileRule } from "./answers";

/** POST /api/v1/operations. */
export interface PlanInput {
  tool: string;
  args: unknown;
  idempotencyKey?: string;
  runId?: string;
  agentId?: string;
  /** Extension (docs/api-extensions.md): also take the run lease in the same transaction. */
  claim?: ClaimInput;
}

/** POST /api/v1/operations/{id}/claim. */
export interface ClaimInput {
  workerId: string;
  leaseMs: number;
}

/** POST /api/v1/operations/{id}/heartbeat. */
export interface HeartbeatInput {
  fence: number;
  leaseMs: number;
}

/** POST /api/v1/operations/{id}/dispatch. */
export interface DispatchInput {
  fence: number;
}

/** POST /api/v1/operations/{id}/outcome. */
export interface OutcomeInput {
  fence: number;
  result: "confirmed" | "failed" | "unknown";
  providerId?: string;
  error?: { kind?: string; httpStatus?: number; message?: string; retryAfterMs?: number };
}

/** POST /api/v1/operations/{id}/reconcile. */
export interface ReconcileInput {
  fence?: number;
  outcome: "applied" | "not_applied";
  providerId?: string;
  evidence: unknown;
  reason?: string;
  /** With not_applied: the reconciling person also approves the retry (docs/authority.md#the-human-gate). */
  approveRetry?: boolean;
}

/** Approve or reject. `actor` is accepted for older clients and ignored: the key's person decides. */
export interface DecisionInput {
  actor?: string;
  reason: string;
}

/** PUT /api/v1/contracts/{tool}. Left out or null: the default. */
export interface ContractInput {
  effect: EffectClass;
  idempotencyKey: "required" | "optional" | "unsupported";
  reconcile: ReconcileRule | null;
  approval: "required" | "not_required";
  maxAttempts: number;
  backoff: { baseMs: number; maxMs: number };
  keyRetentionMs?: number | null;
  dependency?: string | null;
  description?: string | null;
  /** How long an approval request waits for a person before it EXPIRES (1,000 ms to 30 days). */
  approvalTtlMs?: number | null;
  /** How long an operation may stay UNKNOWN before the unknowns.aged event fires. */
  unknownAlertMs?: number | null;
  /** Distinct persons who must approve (quorum). */
  approvals?: number;
  timeoutMs?: number | null;
  keyFrom?: string | null;
  toolError?: ToolErrorMeaning | null;
  mode?: "enforce" | "observe" | null;
  /** Argument and result values in the call's spans; off when left out. */
  traceArguments?: boolean;
  /** Ordered error rules, read before the global table. */
  errorRules?: ErrorRule[] | null;
  /** The version this change started from; the server refuses (409 contract_conflict) if it moved on. */
  expectedVersion?: number;
}

/** PUT /api/v1/runs/{runId}: the run's bounds (one left out or null is no bound). */
export interface RunAllowanceInput {
  deadlineAt?: string | null;
  maxRetries?: number | null;
  maxBackoffMs?: number | null;
}

/** GET /api/v1/operations: filters and the page. */
export interface OperationQuery {
  phase?: Phase;
  tool?: string;
  effect?: EffectClass;
  runId?: string;
  agentId?: string;
  cursor?: string;
  /** At most 200. */
  limit?: number;
}
