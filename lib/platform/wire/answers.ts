// The agent API's answers (docs/api.md), as the server writes them: one module that the server's views are checked
// against (lib/platform/wire/wire.test.ts, by type and against the OpenAPI document) and that the client SDK (lib/executor) and
// the e2e specs import. Pure types: it imports nothing but the core's vocabulary, so every layer may import it.
import type {
  ClassifiedError,
  Decision,
  EffectClass,
  EffectEvidence,
  ErrorRule,
  Phase,
  ToolErrorMeaning,
} from "../../retry-gate/types";

export type { ClassifiedError, Decision };

/** What enforcing a contract would have done with a call that observe mode let through. */
export interface WouldHave {
  /** The refusal's machine code (approval_required, breaker_open, reconcile_required, replayed...). */
  code: string;
  reason: string;
  /** The earlier operation with the same key, when enforcing would have answered from it. */
  operationId?: string;
}

export interface Operation {
  id: string;
  tool: string;
  contractVersion: number;
  effect: EffectClass;
  idempotencyKey: string;
  args: unknown;
  runId: string | null;
  agentId: string | null;
  /** "mcp" when the call came through the MCP gateway; null over the HTTP API. */
  via: string | null;
  /** Observe mode: what enforcing the contract would have done with this call; null when it would have let it go. */
  wouldHave: WouldHave | null;
  /** A replay with edited arguments: the operation it replays (its page lists this one among its `replays`). */
  replayOf: string | null;
  /** MCP gateway: the same call made again after this earlier operation's answer was delivered (a new intent). */
  repeatOf: string | null;
  /** MCP gateway: when the call's final answer (its result, or its failure) was written to the client in full. */
  deliveredAt: string | null;
  /** The W3C trace id of the call that planned the operation (its traceparent, or opledger's own span). */
  traceId: string | null;
  phase: Phase;
  attempt: number;
  maxAttempts: number;
  evidence: EffectEvidence;
  evidenceDetail: unknown;
  providerId: string | null;
  approvedAttempt: number | null;
  /** While waiting for a person: when the request expires (then EXPIRED), and the approvals given of those needed. */
  approvalExpiresAt: string | null;
  approvals: { given: number; needed: number };
  rejectionReason: string | null;
  lastError: ClassifiedError | null;
  notBefore: string | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  fence: number;
  createdAt: string;
  updatedAt: string;
  decision: Decision;
}

export interface Attempt {
  number: number;
  workerId: string;
  fence: number;
  result: string;
  errorKind: string | null;
  httpStatus: number | null;
  errorMessage: string | null;
  backoffMs: number;
  providerId: string | null;
  dispatchedAt: string;
  finishedAt: string | null;
  /** The W3C trace id of the call that dispatched this attempt. */
  traceId: string | null;
}

export interface AuditEvent {
  id: string;
  subjectType: string;
  subjectId: string;
  actorType: string;
  /** The principal's stable id (a user id, a key id, "system"); decisions and filters use it. */
  actorId: string;
  /** The user id of the person a key acted as. */
  onBehalfOf: string | null;
  /** What people read for the actor; null on records written before labels were kept (their actorId was the label). */
  actorLabel: string | null;
  action: string;
  fromPhase: string | null;
  toPhase: string | null;
  reason: string | null;
  data: unknown;
  createdAt: string;
}

/** GET /api/v1/operations/{id}: the operation with its attempts and audit trail. */
export interface OperationDetail extends Operation {
  attempts: Attempt[];
  audit: AuditEvent[];
  /** The replays of this operation (new operations with `replayOf` = this one), oldest first. */
  replays: string[];
  /** MCP gateway: the earlier call this one repeats after its answer was delivered, as it ended and when. */
  repeated: { id: string; phase: Phase; at: string } | null;
}

/** Claim and heartbeat: the lease and the operation under it. */
export interface Lease {
  fence: number;
  leaseExpiresAt: string;
  operation: Operation;
}

/** A list answer: one page, newest first, and the cursor of the next (null on the last). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** How a contract looks the effect up by key (docs/api.md#contracts). */
export interface ReconcileRule {
  method: "lookup" | "manual";
  /** For "lookup": an HTTP GET template; {idempotencyKey} and {providerId} are filled in. */
  urlTemplate?: string;
  timeoutMs?: number;
  /** Name of an OPLEDGER_SECRET_* variable holding the Authorization header value (never the secret itself). */
  authHeaderEnv?: string;
  /** Response field that holds the provider's id, and the one that says the effect happened. */
  providerIdField?: string;
  statusField?: string;
  appliedValues?: string[];
  /** Let the recovery sweep run the lookup by itself for REPLAYABLE operations. */
  auto?: boolean;
}

/** A contract version as the API answers it: every setting filled in, defaults included. */
export interface Contract {
  tool: string;
  version: number;
  effect: EffectClass;
  idempotencyKey: "required" | "optional" | "unsupported";
  reconcile: ReconcileRule | null;
  approval: "required" | "not_required";
  maxAttempts: number;
  backoff: { baseMs: number; maxMs: number };
  keyRetentionMs: number | null;
  dependency: string | null;
  description: string | null;
  approvalTtlMs: number | null;
  unknownAlertMs?: number | null;
  approvals: number;
  timeoutMs: number;
  keyFrom: string;
  toolError: ToolErrorMeaning;
  mode: "enforce" | "observe";
  errorRules: ErrorRule[];
  /** Argument and result values in the call's spans (off by default). */
  traceArguments: boolean;
  author: string;
  createdAt: string;
}

/** GET and PUT /api/v1/runs/{runId}: the run's bounds and what its operations used of them. */
export interface RunAllowance {
  runId: string;
  deadlineAt: string | null;
  maxRetries: number | null;
  maxBackoffMs: number | null;
  used: { retries: number; backoffMs: number };
  /** What is left of each bound; null where there is none. */
  remaining: { retries: number | null; backoffMs: number | null; ms: number | null };
  /** When the gate first refused a retry because of it; null while it never did. */
  exhaustedAt: string | null;
  updatedAt: string;
}

/** Every error answer: an RFC 9457 problem document with a stable snake_case `code` (docs/api.md#errors). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  /** invalid_body: the messages per field path ("" is the body itself). */
  errors?: Record<string, string[]>;
  /** A refusal the gate explains (dispatch 409s). */
  decision?: Decision;
  operationId?: string;
}
