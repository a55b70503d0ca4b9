// A small typed HTTP client for the opledger v1 API (docs/api.md): any Node program can use it, it knows nothing of the
// server.
import { z } from "zod";
import { withTraceHeaders } from "./tracing";
import { DECISION_ACTIONS, EFFECT_CLASSES, EFFECT_EVIDENCE, PHASES } from "../retry-gate/types";
import type {
  ClaimInput,
  ContractInput,
  DecisionInput,
  DispatchInput,
  HeartbeatInput,
  OperationQuery,
  OutcomeInput,
  PlanInput,
  ReconcileInput,
  RunAllowanceInput,
} from "../platform/wire/requests";

// The request bodies are the API's (lib/platform/wire/requests.ts); the answers are read with the lenient schemas below, which
// lib/platform/wire/wire.test.ts checks against the API's answer types (lib/platform/wire/answers.ts).
export type {
  ClaimInput,
  ContractInput,
  DispatchInput,
  HeartbeatInput,
  OperationQuery,
  OutcomeInput,
  PlanInput,
  ReconcileInput,
  RunAllowanceInput,
};

/*
 * Responses are checked with lenient schemas: the fields this client relies on are required, everything else is
 * optional and unknown fields pass through (docs/api.md#conventions: fields may be added). A server that breaks the
 * contract gets a clear `invalid_response` error instead of an undefined deep inside the executor.
 */

const optionalText = z.string().nullish();
const optionalInt = z.number().int().nullish();

export const decisionSchema = z.looseObject({
  action: z.enum(DECISION_ACTIONS),
  reason: z.string(),
  // Absent when the action may be taken now; a server may also send null.
  retryAfterMs: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
  /** UNAVAILABLE: which dependency's breaker holds the operation, since when, and when it tries again. */
  unavailable: z
    .looseObject({
      dependency: z.string().nullable(),
      openSince: z.string().nullable(),
      nextTryAt: z.string().nullable(),
      forced: z.boolean(),
    })
    .optional(),
});
export type Decision = z.output<typeof decisionSchema>;

const classifiedErrorSchema = z.looseObject({
  kind: z.string().optional(),
  errorClass: z.string().optional(),
  httpStatus: optionalInt,
  message: optionalText,
  retryAfterMs: optionalInt,
});

export const operationSchema = z.looseObject({
  id: z.string(),
  tool: z.string(),
  contractVersion: optionalInt,
  effect: z.enum(EFFECT_CLASSES).optional(),
  idempotencyKey: z.string(),
  args: z.unknown().optional(),
  phase: z.enum(PHASES),
  attempt: z.number().int(),
  maxAttempts: optionalInt,
  evidence: z.enum(EFFECT_EVIDENCE).optional(),
  providerId: optionalText,
  runId: optionalText,
  agentId: optionalText,
  approvedAttempt: optionalInt,
  rejectionReason: optionalText,
  lastError: classifiedErrorSchema.nullish(),
  notBefore: optionalText,
  leaseOwner: optionalText,
  leaseExpiresAt: optionalText,
  fence: optionalInt,
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  decision: decisionSchema,
});
export type Operation = z.output<typeof operationSchema>;

export const attemptSchema = z.looseObject({
  number: z.number().int(),
  workerId: optionalText,
  fence: optionalInt,
  result: z.enum(["in_flight", "confirmed", "failed", "unknown"]),
  errorKind: optionalText,
  httpStatus: optionalInt,
  errorMessage: optionalText,
  backoffMs: optionalInt,
  providerId: optionalText,
  dispatchedAt: optionalText,
  finishedAt: optionalText,
});
export type Attempt = z.output<typeof attemptSchema>;

export const auditEventSchema = z.looseObject({
  id: z.string(),
  actorType: z.enum(["user", "api_key", "system"]),
  actorId: z.string(),
  onBehalfOf: optionalText,
  actorLabel: optionalText,
  action: z.string(),
  fromPhase: optionalText,
  toPhase: optionalText,
  reason: optionalText,
  data: z.unknown().optional(),
  createdAt: z.string(),
});
export type AuditEvent = z.output<typeof auditEventSchema>;

export const operationDetailSchema = operationSchema.extend({
  attempts: z.array(attemptSchema),
  audit: z.array(auditEventSchema),
});
export type OperationDetail = z.output<typeof operationDetailSchema>;

export const leaseSchema = z.looseObject({
  fence: z.number().int(),
  leaseExpiresAt: z.string(),
  // docs/api.md#conventions says claim and heartbeat carry the operation; older servers answered a claim with only
  // fence and leaseExpiresAt, so a server that leaves it out is still accepted.
  operation: operationSchema.optional(),
});
export type Lease = z.output<typeof leaseSchema>;

export const contractSchema = z.looseObject({
  tool: z.string(),
  version: z.number().int(),
  effect: z.enum(EFFECT_CLASSES),
  idempotencyKey: z.enum(["required", "optional", "unsupported"]),
  reconcile: z.record(z.string(), z.unknown()).nullish(),
  approval: z.enum(["required", "not_required"]),
  maxAttempts: z.number().int(),
  backoff: z.looseObject({ baseMs: z.number(), maxMs: z.number() }),
  keyRetentionMs: optionalInt,
  dependency: optionalText,
  description: optionalText,
  author: optionalText,
  createdAt: z.string().optional(),
});
export type Contract = z.output<typeof contractSchema>;

const listOf = <T extends z.ZodType>(item: T) =>
  z.looseObject({ items: z.array(item), nextCursor: z.string().nullable() });
const operationListSchema = listOf(operationSchema);
export type OperationList = z.output<typeof operationListSchema>;
const contractListSchema = listOf(contractSchema);
export type ContractList = z.output<typeof contractListSchema>;

const problemSchema = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  status: z.number().optional(),
  detail: z.string().optional(),
  code: z.string().optional(),
  errors: z.unknown().optional(),
  decision: decisionSchema.optional(),
});

/** An error answer of the API (an RFC 9457 problem document), or an answer this client could not read. */
export class ApiProblem extends Error {
  override name = "ApiProblem";
  readonly status: number;
  /** The stable machine code (`stale_fence`, `approval_required`, ...); `http_error` or `invalid_response` when the
   * answer was not a problem document the client understood. */
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  /** The gate's decision, when the server explains a refusal with one (dispatch 409s). */
  readonly decision: Decision | null;
  /** Per-field validation errors of a 400, as the server sent them. */
  readonly errors: unknown;

  constructor(init: {
    status: number;
    code: string;
    title: string;
    detail: string;
    type?: string;
    decision?: Decision | null;
    errors?: unknown;
  }) {
    super(`${init.status} ${init.code}: ${init.detail}`);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.type = init.type ?? "about:blank";
    this.decision = init.decision ?? null;
    this.errors = init.errors;
  }
}

export interface OpledgerClientOptions {
  /** Where the console and API run, for example http://127.0.0.1:3000. */
  baseUrl: string;
  /** An API key; sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** A ledger call that takes longer than this is abandoned with a network error (default 10 s). */
  requestTimeoutMs?: number;
}

const runAllowanceSchema = z.looseObject({
  runId: z.string(),
  deadlineAt: z.string().nullable(),
  maxRetries: z.number().nullable(),
  maxBackoffMs: z.number().nullable(),
  used: z.looseObject({ retries: z.number(), backoffMs: z.number() }),
  remaining: z.looseObject({
    retries: z.number().nullable(),
    backoffMs: z.number().nullable(),
    ms: z.number().nullable(),
  }),
  exhaustedAt: z.string().nullable(),
});
export type RunAllowance = z.output<typeof runAllowanceSchema>;

interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

/** Typed calls for every path of the v1 API; every error answer is thrown as an ApiProblem. */
export class OpledgerClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetchFn: typeof fetch;
  private readonly requestTimeoutMs: number;

  constructor(options: OpledgerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  /** POST /api/v1/operations. `created` is false when the same key and args found the existing operation (200). */
  async planOperation(input: PlanInput, signal?: AbortSignal): Promise<{ operation: Operation; created: boolean }> {
    const { status, data } = await this.request("POST", "/api/v1/operations", operationSchema, { body: input, signal });
    return { operation: data, created: status === 201 };
  }

  /** PUT /api/v1/runs/{runId}: declares or replaces the run's allowance; answers it with what is used. */
  async putRunAllowance(runId: string, input: RunAllowanceInput, signal?: AbortSignal): Promise<RunAllowance> {
    return (await this.request("PUT", runPath(runId), runAllowanceSchema, { body: input, signal })).data;
  }

  async getRunAllowance(runId: string, signal?: AbortSignal): Promise<RunAllowance> {
    return (await this.request("GET", runPath(runId), runAllowanceSchema, { signal })).data;
  }

  async getOperation(id: string, signal?: AbortSignal): Promise<OperationDetail> {
    return (await this.request("GET", operationPath(id), operationDetailSchema, { signal })).data;
  }

  async listOperations(query: OperationQuery = {}, signal?: AbortSignal): Promise<OperationList> {
    return (await this.request("GET", "/api/v1/operations", operationListSchema, { query: { ...query }, signal })).data;
  }

  async claim(id: string, input: ClaimInput, signal?: AbortSignal): Promise<Lease> {
    return (await this.request("POST", `${operationPath(id)}/claim`, leaseSchema, { body: input, signal })).data;
  }

  async heartbeat(id: string, input: HeartbeatInput, signal?: AbortSignal): Promise<Lease> {
    return (await this.request("POST", `${operationPath(id)}/heartbeat`, leaseSchema, { body: input, signal })).data;
  }

  /** On success the operation is DISPATCHED and carries the idempotency key to send; a refusal is a 409 ApiProblem
   * whose `code` names why and whose `decision` says what comes next. */
  async dispatch(id: string, input: DispatchInput, signal?: AbortSignal): Promise<Operation> {
    return (await this.request("POST", `${operationPath(id)}/dispatch`, operationSchema, { body: input, signal })).data;
  }

  async reportOutcome(id: string, input: OutcomeInput, signal?: AbortSignal): Promise<Operation> {
    return (await this.request("POST", `${operationPath(id)}/outcome`, operationSchema, { body: input, signal })).data;
  }

  async reconcile(id: string, input: ReconcileInput, signal?: AbortSignal): Promise<Operation> {
    return (await this.request("POST", `${operationPath(id)}/reconcile`, operationSchema, { body: input, signal }))
      .data;
  }

  /** The decision is the person's behind this client's operator key; the server names them (it ignores any `actor`). */
  async approve(id: string, input: Omit<DecisionInput, "actor">, signal?: AbortSignal): Promise<Operation> {
    return (await this.request("POST", `${operationPath(id)}/approve`, operationSchema, { body: input, signal })).data;
  }

  /** As approve: the key's person decides. */
  async reject(id: string, input: Omit<DecisionInput, "actor">, signal?: AbortSignal): Promise<Operation> {
    return (await this.request("POST", `${operationPath(id)}/reject`, operationSchema, { body: input, signal })).data;
  }

  async putContract(tool: string, input: ContractInput, signal?: AbortSignal): Promise<Contract> {
    return (await this.request("PUT", contractPath(tool), contractSchema, { body: input, signal })).data;
  }

  async getContract(tool: string, signal?: AbortSignal): Promise<Contract> {
    return (await this.request("GET", contractPath(tool), contractSchema, { signal })).data;
  }

  async listContracts(signal?: AbortSignal): Promise<ContractList> {
    return (await this.request("GET", "/api/v1/contracts", contractListSchema, { signal })).data;
  }

  /** GET /api/v1/metrics: the Prometheus text exposition, as text. */
  async metrics(signal?: AbortSignal): Promise<string> {
    const response = await this.send("GET", "/api/v1/metrics", { signal }, "text/plain");
    if (!response.ok) throw await problemFrom(response);
    return response.text();
  }

  private async request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options: RequestOptions,
  ): Promise<{ status: number; data: z.output<S> }> {
    const response = await this.send(method, path, options, "application/json");
    if (!response.ok) throw await problemFrom(response);
    const text = await response.text();
    const parsed = schema.safeParse(parseJson(text));
    if (!parsed.success) {
      throw new ApiProblem({
        status: response.status,
        code: "invalid_response",
        title: "Unexpected answer from the ledger API",
        detail: `${method} ${path} answered ${response.status} with a body this client cannot read: ${z.prettifyError(parsed.error)}`,
      });
    }
    return { status: response.status, data: parsed.data };
  }

  private async send(method: string, path: string, options: RequestOptions, accept: string): Promise<Response> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== "") url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: `${accept}, application/problem+json`,
    };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    withTraceHeaders(headers);
    const timeout = AbortSignal.timeout(this.requestTimeoutMs);
    return this.fetchFn(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
  }
}

function operationPath(id: string): string {
  return `/api/v1/operations/${encodeURIComponent(id)}`;
}

function runPath(runId: string): string {
  return `/api/v1/runs/${encodeURIComponent(runId)}`;
}

function contractPath(tool: string): string {
  return `/api/v1/contracts/${encodeURIComponent(tool)}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads an error answer; a proxy's HTML page or an empty body still becomes an ApiProblem with the HTTP status. */
async function problemFrom(response: Response): Promise<ApiProblem> {
  const text = await response.text().catch(() => "");
  const parsed = problemSchema.safeParse(parseJson(text));
  if (!parsed.success) {
    return new ApiProblem({
      status: response.status,
      code: "http_error",
      title: response.statusText || "HTTP error",
      detail: text.slice(0, 200) || `The ledger API answered ${response.status} without a problem document.`,
    });
  }
  const problem = parsed.data;
  return new ApiProblem({
    status: response.status,
    code: problem.code ?? "http_error",
    title: problem.title ?? response.statusText,
    detail: problem.detail ?? problem.title ?? `The ledger API answered ${response.status}.`,
    type: problem.type,
    decision: problem.decision ?? null,
    errors: problem.errors,
  });
}
