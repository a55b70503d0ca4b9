// The OpenAPI 3.1 description of the agent-facing ledger API (docs/api.md), served at GET /api/v1/openapi.json.
import { RUN_ALLOWANCE_BOUNDS } from "@/lib/retry-gate/run-allowance";
import { CONTRACT_MODES, TOOL_ERROR_MEANINGS } from "@/lib/ledger/contracts/contract-schema";
import { GATEWAY_DEFAULTS } from "@/lib/ledger/contracts/contract-view";
import { DECISION_ACTIONS, EFFECT_CLASSES, EFFECT_EVIDENCE, PHASES } from "@/lib/retry-gate/types";
import * as bulkApi from "./openapi/bulk";
import * as dependenciesApi from "./openapi/dependencies";
import * as errorRulesApi from "./openapi/error-rules";
import { json, problem, ref, shared, type Json, type JsonObject } from "./openapi/parts";
import * as replaySearchApi from "./openapi/replay-search";
import * as runsApi from "./openapi/runs";
import * as webhooksApi from "./openapi/webhooks";

const nullable = (type: string, extra: JsonObject = {}): JsonObject => ({ type: [type, "null"], ...extra });
const dateTime = (description: string): JsonObject => ({ type: "string", format: "date-time", description });
const nullableDateTime = (description: string): JsonObject => ({
  type: ["string", "null"],
  format: "date-time",
  description,
});
const stringEnum = (values: readonly string[], description?: string): JsonObject =>
  description ? { type: "string", enum: [...values], description } : { type: "string", enum: [...values] };

/** The answers every authenticated, body-taking endpoint can give. */
const common = (withBody: boolean): JsonObject => ({
  ...(withBody ? { "400": shared("InvalidBody"), "413": shared("PayloadTooLarge") } : {}),
  "401": shared("Unauthorized"),
  "403": shared("Forbidden"),
  "429": shared("TooManyBadKeys"),
  "500": shared("InternalError"),
  ...(withBody ? { "503": shared("DatabaseBusy") } : {}),
});

/** Any write can lose a race with a concurrent one; repeating the request is safe. */
const WRITE_CONFLICTS = ["write_conflict", "illegal_transition"];

/** The human gate's refusals (docs/authority.md#the-human-gate): a key that is no person, and the four-eyes rule. */
const humanGate = (what: string): JsonObject =>
  problem(
    `${what} is a person's decision: an agent key (or the bootstrap key, which is no person) is refused and nothing ` +
      "changes; nobody tied to the operation (the key that runs it and that key's person, whoever asked for the approval " +
      "or replayed it) may give it (four_eyes). Or the key lacks the scope.",
    ["person_required", "four_eyes", "forbidden"],
  );

/** An agent key's reads and writes reach only the operations it planned; another key's answer 404 (not 403). */
const OWN_OPERATIONS = " An agent key acts only on operations it planned; another key's operation is 404 to it.";

const body = (schema: string): JsonObject => ({
  required: true,
  content: { "application/json": { schema: ref(schema) } },
});

/**
 * The MCP gateway's fields of a contract (docs/mcp.md#the-contract-fields-the-gateway-reads). A body may leave them out
 * or send null for the default; a contract always answers with the value in force.
 */
function gatewayFields(input: boolean): JsonObject {
  const type = (name: string): Json => (input ? [name, "null"] : name);
  const oneOf = (values: readonly string[]): Json => (input ? [...values, null] : [...values]);
  const absent = input ? " Null or absent: the default." : "";
  return {
    timeoutMs: {
      type: type("integer"),
      minimum: 100,
      maximum: 600_000,
      default: GATEWAY_DEFAULTS.timeoutMs,
      description: `MCP gateway: how long the upstream may take to answer; no answer in time is UNKNOWN.${absent}`,
    },
    keyFrom: {
      type: type("string"),
      maxLength: 200,
      default: GATEWAY_DEFAULTS.keyFrom,
      description:
        'MCP gateway: where a call\'s idempotency key comes from: "args" (the canonical arguments, within the run) or ' +
        `a template naming at least one argument, such as "refund:{order_id}" (the same key across runs).${absent}`,
    },
    toolError: {
      type: type("string"),
      enum: oneOf(TOOL_ERROR_MEANINGS),
      default: GATEWAY_DEFAULTS.toolError,
      description:
        "MCP gateway: what an answer with isError means: fatal (not retried), transient (retried under the class's " +
        `rules) or unknown (the effect may exist, so the outcome is UNKNOWN).${absent}`,
    },
    mode: {
      type: type("string"),
      enum: oneOf(CONTRACT_MODES),
      default: GATEWAY_DEFAULTS.mode,
      description: `enforce, or observe: forward every call and record what enforcing would have done.${absent}`,
    },
  };
}

/** A contract's opt-in to argument and result values in spans (docs/observability.md). */
const TRACE_ARGUMENTS = {
  type: "boolean",
  default: false,
  description:
    "OpenTelemetry spans of this tool's calls may carry the call's argument and result values " +
    "(gen_ai.tool.call.arguments, gen_ai.tool.call.result); without it they carry none.",
} as const;

const scope = (...scopes: string[]): Json[] => scopes.map((s) => ({ apiKey: [s] }));
/** Any valid key, whatever its scopes. */
const anyKey: Json[] = [{ apiKey: [] }];

const operationIdParam: JsonObject = { $ref: "#/components/parameters/OperationId" };
const toolParam: JsonObject = { $ref: "#/components/parameters/Tool" };

/** POST /api/v1/operations/{id}/<action>: the shape every operation action shares. */
function operationAction(
  operationId: string,
  summary: string,
  description: string,
  security: Json[],
  requestSchema: string,
  ok: JsonObject,
  conflicts: JsonObject,
  forbidden?: JsonObject,
): JsonObject {
  return {
    post: {
      operationId,
      tags: ["operations"],
      summary,
      description,
      security,
      parameters: [operationIdParam],
      requestBody: body(requestSchema),
      responses: {
        "200": ok,
        ...common(true),
        ...(forbidden ? { "403": forbidden } : {}),
        "404": shared("NotFound"),
        "409": conflicts,
      },
    },
  };
}

function schemas(): JsonObject {
  return {
    Problem: {
      type: "object",
      description: "RFC 9457 problem details, served as application/problem+json.",
      required: ["type", "title", "status", "detail", "code"],
      properties: {
        type: { type: "string", description: "A URI naming the problem type." },
        title: { type: "string" },
        status: { type: "integer" },
        detail: { type: "string", description: "What went wrong, for a person." },
        code: { type: "string", description: "Stable machine code in snake_case." },
        errors: {
          type: "object",
          description: "On invalid_body: each bad field and what is wrong with it.",
          additionalProperties: { type: "array", items: { type: "string" } },
        },
        decision: { ...ref("Decision"), description: "On a dispatch refusal: the gate's decision and why." },
        operationId: { type: "string", description: "The operation a refusal is about." },
      },
    },
    Decision: {
      type: "object",
      description: "The retry gate's decision: what may happen next and why.",
      required: ["action", "reason"],
      properties: {
        action: stringEnum(DECISION_ACTIONS),
        reason: { type: "string", description: "One sentence an operator can read." },
        retryAfterMs: { type: "integer", minimum: 0, description: "Present when the action is not allowed now." },
        unavailable: {
          type: "object",
          description: "UNAVAILABLE: the dependency whose circuit breaker holds the operation.",
          required: ["dependency", "openSince", "nextTryAt", "forced"],
          properties: {
            dependency: nullable("string", { description: "The dependency's name." }),
            openSince: nullableDateTime("Since when the breaker is open (or was forced open)."),
            nextTryAt: nullableDateTime("When it lets a probe through; null while an operator holds it open."),
            forced: { type: "boolean", description: "An operator forced it open: only a person closes it." },
          },
        },
        runAllowance: {
          type: "object",
          description: "STOP because of the run's allowance (PUT /api/v1/runs/{runId}): the run and the bound reached.",
          required: ["runId", "bound"],
          properties: {
            runId: { type: "string" },
            bound: stringEnum(RUN_ALLOWANCE_BOUNDS),
          },
        },
      },
    },
    Phase: stringEnum(PHASES),
    EffectClass: stringEnum(EFFECT_CLASSES),
    ClassifiedError: {
      type: "object",
      description: "The last error as the gate classified it.",
      properties: {
        kind: { type: "string" },
        errorClass: stringEnum(["transient", "fatal", "unclassified"]),
        httpStatus: { type: "integer" },
        retryAfterMs: { type: "integer" },
        message: { type: "string" },
        rule: {
          type: "string",
          description: 'The contract\'s error rule that classified it ("rule 2 of payments.charge: ..."), if one did.',
        },
      },
    },
    Operation: {
      type: "object",
      description: "One side-effecting tool call, written before the request leaves.",
      required: [
        "id",
        "tool",
        "contractVersion",
        "effect",
        "idempotencyKey",
        "phase",
        "attempt",
        "evidence",
        "fence",
        "approvalExpiresAt",
        "approvals",
        "createdAt",
        "updatedAt",
        "decision",
      ],
      properties: {
        id: { type: "string" },
        tool: { type: "string" },
        contractVersion: { type: "integer", description: "The contract version the operation was planned under." },
        effect: ref("EffectClass"),
        idempotencyKey: {
          type: "string",
          description: "Created once at planning; send it to the provider on every attempt.",
        },
        args: { description: "The call's arguments as planned." },
        phase: ref("Phase"),
        attempt: { type: "integer", minimum: 0, description: "Attempts dispatched so far (the budget spent)." },
        maxAttempts: { type: "integer", description: "The attempt budget of the contract version." },
        evidence: stringEnum(EFFECT_EVIDENCE, "What a reconciliation proved about the effect."),
        evidenceDetail: { description: "The evidence kept from the reconciliation, or null." },
        providerId: nullable("string"),
        runId: nullable("string"),
        agentId: nullable("string"),
        approvedAttempt: nullable("integer", { description: "The attempt number a person approved." }),
        approvalExpiresAt: nullableDateTime(
          "While AWAITING_APPROVAL: when the request for a person runs out. Nobody deciding by then ends the " +
            "operation as EXPIRED, never approved (the contract's approvalTtlMs, default 24 h). Kept on an EXPIRED " +
            "operation; null otherwise.",
        ),
        approvals: {
          type: "object",
          description:
            "The quorum of the pending approval request: approvals given so far by distinct persons, of those the " +
            "contract needs (its `approvals`, default 1).",
          required: ["given", "needed"],
          properties: {
            given: { type: "integer", minimum: 0 },
            needed: { type: "integer", minimum: 1, maximum: 10 },
          },
        },
        rejectionReason: nullable("string"),
        lastError: { oneOf: [ref("ClassifiedError"), { type: "null" }] },
        notBefore: nullableDateTime("Earliest time the next attempt may be dispatched."),
        leaseOwner: nullable("string", { description: "workerId of the current lease holder." }),
        leaseExpiresAt: nullableDateTime("When the current lease ends unless extended."),
        fence: { type: "integer", minimum: 0, description: "The current fencing token." },
        traceId: nullable("string", {
          pattern: "^[0-9a-f]{32}$",
          description:
            "The W3C trace id of the call that planned the operation: the caller's traceparent (or MCP " +
            "params._meta.traceparent), else the trace of opledger's own span when tracing is configured; null otherwise.",
        }),
        createdAt: dateTime("When the operation was planned."),
        updatedAt: dateTime("Last change."),
        decision: ref("Decision"),
        via: nullable("string", { description: '"mcp" when the call came through the MCP gateway; null otherwise.' }),
        wouldHave: {
          description:
            "Observe mode: what enforcing the contract would have done with this call (its refusal's `code`, the " +
            "`reason`, and the earlier `operationId` it would have answered from); null when it would have let it go.",
          oneOf: [
            {
              type: "object",
              required: ["code", "reason"],
              properties: { code: { type: "string" }, reason: { type: "string" }, operationId: { type: "string" } },
            },
            { type: "null" },
          ],
        },
        repeatOf: nullable("string", {
          description:
            "MCP gateway: the earlier operation of the same call whose answer was delivered before this call was made " +
            "(a new call, not a retry; docs/api-extensions.md).",
        }),
        deliveredAt: nullableDateTime(
          "MCP gateway: when the call's final answer (its result, or its failure) was written out to the client in full.",
        ),
        ...replaySearchApi.operationFields,
      },
    },
    Attempt: {
      type: "object",
      required: ["number", "workerId", "fence", "result", "backoffMs", "dispatchedAt"],
      properties: {
        number: { type: "integer", minimum: 1 },
        workerId: { type: "string" },
        fence: { type: "integer" },
        result: stringEnum(["in_flight", "confirmed", "failed", "unknown"]),
        errorKind: nullable("string"),
        httpStatus: nullable("integer"),
        errorMessage: nullable("string"),
        backoffMs: {
          type: "integer",
          minimum: 0,
          description:
            "The backoff the gate prescribed before this attempt, as far as it was waited (not the agent's own " +
            "delay or a wait for a person).",
        },
        providerId: nullable("string"),
        traceId: nullable("string", {
          pattern: "^[0-9a-f]{32}$",
          description: "The W3C trace id of the call that dispatched this attempt (as the operation's traceId).",
        }),
        dispatchedAt: dateTime("When the attempt left."),
        finishedAt: nullableDateTime("When its outcome was recorded."),
      },
    },
    AuditEvent: {
      type: "object",
      required: ["id", "actorType", "actorId", "action", "createdAt"],
      properties: {
        id: { type: "string" },
        subjectType: { type: "string", description: "operation, contract, dependency, user or api_key." },
        subjectId: { type: "string" },
        actorType: stringEnum(["user", "api_key", "system"]),
        actorId: {
          type: "string",
          description:
            'The principal\'s stable id: a user id, an API key id, or "system". Records written before ids were ' +
            "kept carry the label here instead.",
        },
        onBehalfOf: nullable("string", {
          description: "The user id of the person an operator or admin key acted as; null otherwise.",
        }),
        actorLabel: nullable("string", {
          description:
            "What people read for the actor (display only, never used for a decision): an email, a key's name " +
            'and prefix, "alice@example.com (key pager (opl_…))" for a key acting as a person. Null on records ' +
            "written before labels were kept (their actorId is the label).",
        }),
        action: { type: "string" },
        fromPhase: { oneOf: [ref("Phase"), { type: "null" }] },
        toPhase: { oneOf: [ref("Phase"), { type: "null" }] },
        reason: nullable("string"),
        data: { description: "Details of the event (JSON)." },
        createdAt: dateTime("When it happened."),
      },
    },
    OperationDetail: {
      allOf: [
        ref("Operation"),
        {
          type: "object",
          required: ["attempts", "audit"],
          properties: {
            attempts: { type: "array", items: ref("Attempt") },
            audit: { type: "array", items: ref("AuditEvent"), description: "Oldest first." },
            repeated: {
              description:
                "MCP gateway: the earlier call this one repeats (`repeatOf`), as it ended and when; else null.",
              oneOf: [
                {
                  type: "object",
                  required: ["id", "phase", "at"],
                  properties: {
                    id: { type: "string" },
                    phase: ref("Phase"),
                    at: { type: "string", format: "date-time" },
                  },
                },
                { type: "null" },
              ],
            },
            ...replaySearchApi.operationDetailFields,
          },
        },
      ],
    },
    OperationList: {
      type: "object",
      required: ["items", "nextCursor"],
      properties: {
        items: { type: "array", items: ref("Operation") },
        nextCursor: nullable("string", { description: "Pass as `cursor` for the next page; null on the last." }),
      },
    },
    Lease: {
      type: "object",
      required: ["fence", "leaseExpiresAt", "operation"],
      properties: {
        fence: { type: "integer", description: "Send it with every write while the lease is held." },
        leaseExpiresAt: dateTime("When the lease ends unless extended by a heartbeat."),
        operation: ref("Operation"),
      },
    },
    ContractInput: {
      type: "object",
      required: ["effect", "idempotencyKey", "reconcile", "approval", "maxAttempts", "backoff"],
      properties: {
        effect: ref("EffectClass"),
        idempotencyKey: stringEnum(["required", "optional", "unsupported"]),
        reconcile: { oneOf: [ref("ReconcileMethod"), { type: "null" }] },
        approval: stringEnum(
          ["required", "not_required"],
          '"required": every attempt, the first included, waits for a person.',
        ),
        maxAttempts: { type: "integer", minimum: 1 },
        backoff: {
          type: "object",
          required: ["baseMs", "maxMs"],
          properties: { baseMs: { type: "integer", minimum: 0 }, maxMs: { type: "integer", minimum: 0 } },
        },
        keyRetentionMs: nullable("integer", { minimum: 1000, description: "How long the provider keeps keys." }),
        dependency: nullable("string", { description: "The dependency whose circuit breaker guards this tool." }),
        description: nullable("string"),
        approvalTtlMs: nullable("integer", {
          minimum: 1000,
          maximum: 2_592_000_000,
          description:
            "How long an operation may wait for a person before it becomes EXPIRED, never approved (1 s to 30 days). " +
            "Null or absent: 24 h.",
        }),
        unknownAlertMs: nullable("integer", {
          minimum: 1000,
          maximum: 2_592_000_000,
          description:
            "How long an operation may stay UNKNOWN before the unknowns.aged webhook event fires (1 s to 30 days). " +
            "Null or absent: 15 min.",
        }),
        approvals: {
          type: "integer",
          minimum: 1,
          maximum: 10,
          default: 1,
          description: "Quorum: how many distinct persons must approve before an attempt is granted.",
        },
        ...gatewayFields(true),
        ...errorRulesApi.contractInputFields,
        traceArguments: { ...TRACE_ARGUMENTS, description: `${TRACE_ARGUMENTS.description} Absent: false.` },
        expectedVersion: {
          type: "integer",
          minimum: 0,
          description: "The version the editor started from; a save against an older one is refused (409).",
        },
      },
    },
    ReconcileMethod: {
      type: "object",
      description: "How to reconcile an ambiguous outcome: a provider lookup by key, or a person.",
      required: ["method"],
      properties: {
        method: stringEnum(["lookup", "manual"]),
        urlTemplate: {
          type: "string",
          format: "uri",
          description: "For lookup: an HTTP GET template; {idempotencyKey} and {providerId} are filled in.",
        },
        timeoutMs: { type: "integer", minimum: 100, maximum: 60_000 },
        authHeaderEnv: { type: "string", description: "Environment variable holding the Authorization header." },
        providerIdField: { type: "string" },
        statusField: { type: "string" },
        appliedValues: { type: "array", items: { type: "string" } },
        auto: { type: "boolean", description: "Let the recovery sweep run the lookup by itself." },
      },
    },
    Contract: {
      type: "object",
      required: [
        "tool",
        "version",
        "effect",
        "idempotencyKey",
        "reconcile",
        "approval",
        "maxAttempts",
        "backoff",
        "approvalTtlMs",
        "approvals",
        "timeoutMs",
        "keyFrom",
        "toolError",
        "mode",
        "errorRules",
        "traceArguments",
        "author",
        "createdAt",
      ],
      properties: {
        tool: { type: "string" },
        version: { type: "integer", minimum: 1 },
        effect: ref("EffectClass"),
        idempotencyKey: stringEnum(["required", "optional", "unsupported"]),
        reconcile: { oneOf: [ref("ReconcileMethod"), { type: "null" }] },
        approval: stringEnum(["required", "not_required"]),
        maxAttempts: { type: "integer" },
        backoff: {
          type: "object",
          required: ["baseMs", "maxMs"],
          properties: { baseMs: { type: "integer" }, maxMs: { type: "integer" } },
        },
        keyRetentionMs: nullable("integer"),
        dependency: nullable("string"),
        description: nullable("string"),
        approvalTtlMs: nullable("integer", { description: "How long a request for a person waits; null: 24 h." }),
        unknownAlertMs: nullable("integer", { description: "When unknowns.aged fires; null: 15 min." }),
        approvals: { type: "integer", minimum: 1, maximum: 10, description: "Approvals needed (quorum)." },
        ...gatewayFields(false),
        ...errorRulesApi.contractFields,
        traceArguments: TRACE_ARGUMENTS,
        author: { type: "string", description: "The label of who saved this version." },
        createdAt: dateTime("When this version was written."),
      },
    },
    ContractList: {
      type: "object",
      required: ["items", "nextCursor"],
      properties: { items: { type: "array", items: ref("Contract") }, nextCursor: nullable("string") },
    },
    PlanInput: {
      type: "object",
      required: ["tool", "args"],
      properties: {
        tool: { type: "string" },
        args: { description: "The call's arguments (any JSON); compared as canonical JSON for deduplication." },
        idempotencyKey: { type: "string", description: "Omit to let the server create one, once." },
        runId: { type: "string" },
        agentId: { type: "string" },
        claim: {
          ...ref("ClaimInput"),
          description:
            "Extension (docs/api-extensions.md): also take the run lease, as POST /operations/{id}/claim would, " +
            "in the same transaction. The answer's fence and leaseExpiresAt are the lease's.",
        },
      },
    },
    ClaimInput: {
      type: "object",
      required: ["workerId", "leaseMs"],
      properties: {
        workerId: { type: "string" },
        leaseMs: { type: "integer", minimum: 100, maximum: 3_600_000 },
      },
    },
    HeartbeatInput: {
      type: "object",
      required: ["fence", "leaseMs"],
      properties: {
        fence: { type: "integer" },
        leaseMs: { type: "integer", minimum: 100, maximum: 3_600_000 },
      },
    },
    DispatchInput: {
      type: "object",
      required: ["fence"],
      properties: { fence: { type: "integer" } },
    },
    OutcomeInput: {
      type: "object",
      required: ["fence", "result"],
      properties: {
        fence: { type: "integer" },
        result: stringEnum(
          ["confirmed", "failed", "unknown"],
          "failed only for a definite error answer; a timeout or lost response is unknown.",
        ),
        providerId: { type: "string" },
        error: {
          type: "object",
          properties: {
            kind: { type: "string" },
            httpStatus: { type: "integer" },
            message: { type: "string" },
            retryAfterMs: { type: "integer", minimum: 0, description: "The provider's Retry-After, in ms." },
          },
        },
      },
    },
    ReconcileInput: {
      type: "object",
      required: ["outcome", "evidence"],
      properties: {
        fence: { type: "integer", description: "The caller's fence, when it holds the lease." },
        outcome: stringEnum(
          ["applied", "not_applied"],
          "applied: the effect exists and is never repeated; not_applied: a retry with the same key may follow.",
        ),
        providerId: { type: "string" },
        evidence: { description: "What proves the outcome (lookup result, ticket, ...); kept with the operation." },
        reason: { type: "string", minLength: 1 },
        approveRetry: {
          type: "boolean",
          description:
            "With not_applied: the reconciling person also approves the retry, in one step. This is the human gate: " +
            "only a key bound to a person may ask (an agent key gets 403 person_required and nothing changes), under " +
            "the four-eyes rule; with a quorum above 1 it is the first approval and the operation waits for the others.",
        },
      },
    },
    ApprovalInput: {
      type: "object",
      required: ["reason"],
      properties: {
        actor: {
          type: "string",
          maxLength: 200,
          deprecated: true,
          description:
            "Accepted for older clients and ignored: the decision is recorded as the person the key is bound to " +
            "(or the key itself), by id.",
        },
        reason: { type: "string", minLength: 1, maxLength: 2000 },
      },
    },
    Health: {
      type: "object",
      required: ["status"],
      properties: { status: { type: "string", examples: ["ok"] } },
    },
  };
}

const DISPATCH_REFUSALS = [
  "approval_required",
  "approval_expired",
  "in_flight",
  "breaker_open",
  "budget_spent",
  "reconcile_required",
  "already_finished",
  "retry_not_due",
  "lease_expired",
  "stale_fence",
];

function paths(): JsonObject {
  return {
    "/api/health": {
      get: {
        operationId: "health",
        tags: ["service"],
        summary: "Readiness: the service and its database answer (for a load balancer)",
        security: [],
        responses: {
          "200": json("The service is up.", "Health"),
          "503": problem("The service cannot reach its database.", ["database_unavailable"]),
        },
      },
    },
    "/api/health/live": {
      get: {
        operationId: "liveness",
        tags: ["service"],
        summary: "Liveness: the process answers (no database check; for a restart policy)",
        security: [],
        responses: { "200": { description: "The process is up.", content: { "application/json": {} } } },
      },
    },
    "/api/v1/openapi.json": {
      get: {
        operationId: "openApiDocument",
        tags: ["service"],
        summary: "This document",
        security: [],
        responses: { "200": { description: "The OpenAPI 3.1 document.", content: { "application/json": {} } } },
      },
    },
    "/api/v1/contracts": {
      get: {
        operationId: "listContracts",
        tags: ["contracts"],
        summary: "List tool contracts (current versions)",
        security: scope("agent", "operator"),
        responses: { "200": json("The contracts.", "ContractList"), ...common(false) },
      },
    },
    "/api/v1/contracts/{tool}": {
      parameters: [toolParam],
      get: {
        operationId: "getContract",
        tags: ["contracts"],
        summary: "A tool's current contract",
        security: scope("agent", "operator"),
        responses: { "200": json("The contract.", "Contract"), ...common(false), "404": shared("NotFound") },
      },
      put: {
        operationId: "putContract",
        tags: ["contracts"],
        summary: "Create or replace a tool contract (admin scope)",
        description:
          "Every change is a new version; operations keep the version they were planned under. An identical body " +
          "keeps the current version and answers 200. 201 when the tool had no contract yet.",
        security: scope("admin"),
        requestBody: body("ContractInput"),
        responses: {
          "200": json("Replaced (new version), or unchanged for an identical body.", "Contract"),
          "201": json("Created (version 1).", "Contract"),
          ...common(true),
          "409": problem("The contract changed since expectedVersion, or a concurrent save won.", [
            "contract_conflict",
            "write_conflict",
          ]),
        },
      },
    },
    "/api/v1/operations": {
      post: {
        operationId: "planOperation",
        tags: ["operations"],
        summary: "Plan an operation before anything leaves (agent scope)",
        description:
          "Same (tool, idempotencyKey) and same args: 200 with the same operation and nothing written. Same key " +
          "with different args: 422 idempotency_key_reused.",
        security: scope("agent"),
        requestBody: body("PlanInput"),
        responses: {
          "200": json("The existing operation for this tool, key and args.", "Operation"),
          "201": json("Planned: phase PLANNED, attempt 0.", "Operation"),
          "400": problem("Bad body, or the contract requires a key and none was given.", [
            "invalid_body",
            "malformed_json",
            "idempotency_key_required",
          ]),
          "401": shared("Unauthorized"),
          "403": shared("Forbidden"),
          "413": shared("PayloadTooLarge"),
          "500": shared("InternalError"),
          "422": problem("No contract for the tool, or the key was used with other args.", [
            "no_contract",
            "idempotency_key_reused",
          ]),
        },
      },
      get: {
        operationId: "listOperations",
        tags: ["operations"],
        summary: "The ledger, newest first, with keyset pagination",
        description: "An agent key lists only the operations it planned; an operator or admin key lists all.",
        security: scope("agent", "operator"),
        parameters: [
          { name: "phase", in: "query", schema: ref("Phase") },
          { name: "tool", in: "query", schema: { type: "string" } },
          { name: "effect", in: "query", schema: ref("EffectClass") },
          { name: "runId", in: "query", schema: { type: "string" } },
          { name: "agentId", in: "query", schema: { type: "string" } },
          replaySearchApi.searchParameter,
          { name: "cursor", in: "query", schema: { type: "string" }, description: "nextCursor of the previous page." },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200 } },
        ],
        responses: {
          "200": {
            description: "A page of operations (a SearchPage when `q` is given).",
            content: {
              "application/json": { schema: { oneOf: [ref("OperationList"), ref("SearchPage")] } },
            },
          },
          "400": problem("A query parameter is invalid (for example limit above 200)."),
          ...common(false),
        },
      },
    },
    "/api/v1/operations/{id}": {
      get: {
        operationId: "getOperation",
        tags: ["operations"],
        summary: "The operation with its attempts, audit trail and the gate's decision",
        description: `The audit trail names each actor by a stable id and a label (AuditEvent).${OWN_OPERATIONS}`,
        security: scope("agent", "operator"),
        parameters: [operationIdParam],
        responses: {
          "200": json("The operation.", "OperationDetail"),
          ...common(false),
          "404": shared("NotFound"),
        },
      },
    },
    "/api/v1/operations/{id}/claim": operationAction(
      "claimOperation",
      "Take the run lease (agent scope)",
      "An expired lease is taken over and the fence increases by one. An operation whose lease ran out while " +
        "DISPATCHED becomes UNKNOWN first, as the recovery sweep would make it (the request may have left): the " +
        `claim holds its lease, and dispatch answers reconcile_required.${OWN_OPERATIONS}`,
      scope("agent"),
      "ClaimInput",
      json("The lease.", "Lease"),
      problem(
        "Another worker holds a live lease, or the operation has finished (approval_expired: it waited for a person " +
          "longer than its contract allows and is EXPIRED; nothing was sent, and a person may replay it).",
        ["lease_held", "already_finished", "approval_expired", ...WRITE_CONFLICTS],
      ),
    ),
    "/api/v1/operations/{id}/heartbeat": operationAction(
      "heartbeatOperation",
      "Extend the run lease (agent scope)",
      `A stale fence means the lease was taken over: stop, and abort any call in flight.${OWN_OPERATIONS}`,
      scope("agent"),
      "HeartbeatInput",
      json("The extended lease.", "Lease"),
      problem("The fence is stale: another worker took the lease over.", ["stale_fence", ...WRITE_CONFLICTS]),
    ),
    "/api/v1/operations/{id}/dispatch": operationAction(
      "dispatchOperation",
      "Ask the gate to dispatch the next attempt (agent scope)",
      "On 200 the operation is DISPATCHED, attempt has increased by one, and idempotencyKey is the key to send. " +
        "Otherwise 409: `code` names why and `decision` says what comes next (approval_expired: nobody approved in " +
        "time and the operation is EXPIRED, never to be sent). A stale fence changes nothing and is audited." +
        OWN_OPERATIONS,
      scope("agent"),
      "DispatchInput",
      json("Dispatched: send the request now.", "Operation"),
      problem("The operation may not be dispatched now.", [...DISPATCH_REFUSALS, ...WRITE_CONFLICTS]),
    ),
    "/api/v1/operations/{id}/outcome": operationAction(
      "reportOutcome",
      "Report what the provider answered (agent scope)",
      "confirmed -> CONFIRMED; unknown -> UNKNOWN; failed -> the gate decides (retry later, a terminal phase for " +
        "fatal errors, or approval). Every call records one attempt row." +
        OWN_OPERATIONS,
      scope("agent"),
      "OutcomeInput",
      json("The operation with the gate's next decision.", "Operation"),
      problem(
        "The fence is stale (the lease was taken over: nothing changed), or no attempt is in flight. The same report " +
          "sent twice answers 200 with the operation.",
        ["stale_fence", "not_dispatched", ...WRITE_CONFLICTS],
      ),
    ),
    "/api/v1/operations/{id}/reconcile": operationAction(
      "reconcileOperation",
      "Record what a lookup or a person proved (operator scope, or the agent on its own operation)",
      "UNKNOWN -> RECONCILED with the evidence kept. applied: the effect exists and is never repeated. " +
        "not_applied: the gate may allow a retry with the same key. approveRetry is the human gate: only a key " +
        "bound to a person may ask for it." +
        OWN_OPERATIONS,
      scope("operator", "agent"),
      "ReconcileInput",
      json("The reconciled operation.", "Operation"),
      problem("The operation is not UNKNOWN, the fence given is stale, or this person already gave their approval.", [
        "not_unknown",
        "stale_fence",
        "already_approved",
        ...WRITE_CONFLICTS,
      ]),
      humanGate("Approving a retry (approveRetry)"),
    ),
    "/api/v1/operations/{id}/approve": operationAction(
      "approveOperation",
      "Approve exactly one more attempt (a key bound to a person)",
      "The same action as the console's button, as the person the key is bound to; a free-text `actor` is ignored. " +
        "With a quorum (the contract's `approvals` above 1) each distinct person's approval is recorded and the " +
        "last one grants the attempt; the answer's `approvals` says how many are given. A request past its " +
        "`approvalExpiresAt` can no longer be approved.",
      scope("operator", "agent"),
      "ApprovalInput",
      json("The operation: approved, or still waiting for the rest of the quorum.", "Operation"),
      problem(
        "The operation is not waiting for approval (or was approved already), its approval request expired, or this " +
          "person already approved it (the quorum needs someone else).",
        ["not_awaiting_approval", "approval_expired", "already_approved", ...WRITE_CONFLICTS],
      ),
      humanGate("Approving an attempt"),
    ),
    "/api/v1/operations/{id}/reject": operationAction(
      "rejectOperation",
      "Reject: end the operation (operator scope, or an agent key giving up its own)",
      "The reason is returned to the agent in the decision. A free-text `actor` is ignored: the record names the " +
        "key's person (or the key) by id." +
        OWN_OPERATIONS,
      scope("operator", "agent"),
      "ApprovalInput",
      json("The rejected operation.", "Operation"),
      problem("The operation has ended (or its effect is proven) and can no longer be rejected.", [
        "not_rejectable",
        ...WRITE_CONFLICTS,
      ]),
    ),
    "/api/v1/metrics": {
      get: {
        operationId: "metrics",
        tags: ["service"],
        summary: "Prometheus metrics (metrics scope, or a key bound to a person)",
        description:
          "At least opledger_unknown_outcomes, opledger_reconciliations_total, opledger_duplicate_rejections_total, " +
          'opledger_approval_interruptions_total, opledger_retries_total{effect="..."}, ' +
          "opledger_stale_fence_rejections_total, operations by phase, and where the wall-clock went: " +
          "opledger_backoff_seconds_total{tool,dependency} (time waited before attempts) and the " +
          "opledger_attempt_seconds{tool} histogram (call durations). An agent key is refused (403): it reads " +
          "only its own operations, not the whole ledger's figures.",
        security: scope("metrics", "operator"),
        responses: {
          "200": {
            description: "Prometheus text exposition format 0.0.4.",
            content: { "text/plain": { schema: { type: "string" } } },
          },
          ...common(false),
        },
      },
    },
  };
}

export function openApiDocument(): object {
  return {
    openapi: "3.1.0",
    info: {
      title: "opledger ledger API",
      version: "1.0.0",
      description:
        "Agent runtimes plan every side-effecting tool call in a durable ledger before it leaves, take a fenced " +
        "lease, ask the retry gate for each dispatch and report each outcome. Errors are RFC 9457 problem " +
        "documents with a stable `code`. Times are ISO 8601 UTC; durations are milliseconds.",
    },
    servers: [{ url: "/" }],
    security: anyKey,
    tags: [
      { name: "operations", description: "Plan, run and resolve side-effecting tool calls." },
      { name: "contracts", description: "Per-tool side-effect contracts, versioned." },
      { name: "runs", description: "A run's deadline and retry allowance, spent across its operations." },
      { name: "service", description: "Health, metrics and this document." },
      { name: "bulk", description: "Act on many operations at once, on an exact, frozen preview." },
      { name: "webhooks", description: "Tell the person who must act: signed events to their endpoints." },
      { name: "dependencies", description: "Circuit breakers an operator can tune." },
    ],
    paths: {
      ...paths(),
      ...replaySearchApi.paths,
      ...bulkApi.paths,
      ...webhooksApi.paths,
      ...dependenciesApi.paths,
      ...runsApi.paths,
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description:
            "An API key as `Authorization: Bearer <key>`. Keys are created by an admin, shown once, stored as a " +
            "hash, revocable and scoped: `agent` plans and runs its own operations, as an agent identity; " +
            "`operator` approves, rejects and reconciles as the person the key is bound to; `admin` also writes " +
            "contracts, as an admin it is bound to; `metrics` scrapes /api/v1/metrics only. A key with `operator` or " +
            "`admin` acts as its person, and disabling the person disables the key; the bootstrap key " +
            "(OPLEDGER_BOOTSTRAP_API_KEY) is its own principal and cannot open the human gate. No key, a bad key, " +
            "or a key whose person is disabled: 401. A key without the scope: 403. The scopes listed on each " +
            "operation are alternatives; an `admin` key passes any of them.",
        },
      },
      parameters: {
        OperationId: { name: "id", in: "path", required: true, schema: { type: "string" } },
        Tool: {
          name: "tool",
          in: "path",
          required: true,
          schema: { type: "string", maxLength: 128 },
          description:
            "The tool's name: letters, digits and . _ : -, for example email.send, or fs__write_file for the MCP " +
            "gateway's tool write_file of the upstream fs.",
        },
      },
      responses: {
        InvalidBody: problem("Malformed JSON or an invalid field (listed in `errors`); nothing was written.", [
          "invalid_body",
          "malformed_json",
        ]),
        PayloadTooLarge: problem("The body is larger than 256 KiB; nothing was written.", ["payload_too_large"]),
        Unauthorized: problem("No API key, an unknown or revoked one, or one whose person is disabled.", [
          "unauthorized",
        ]),
        Forbidden: problem("The key lacks the scope this endpoint needs.", ["forbidden"]),
        TooManyBadKeys: problem(
          "This client address presented more than 300 unknown or revoked keys in a minute: its bad keys are answered " +
            "this way for a minute (Retry-After). A valid key is never refused by it.",
          ["too_many_bad_keys"],
        ),
        NotFound: problem(
          "No such operation or contract. An agent key is also told this about an operation another key planned: it " +
            "must not learn that the id exists (404, not 403).",
          ["not_found"],
        ),
        InternalError: problem("The server failed; it was logged. Repeating the request is safe.", ["internal_error"]),
        DatabaseBusy: problem(
          "Another writer held the SQLite database past the retries; nothing was written. Repeat after `Retry-After` seconds.",
          ["database_busy"],
        ),
      },
      schemas: {
        ...schemas(),
        ...replaySearchApi.schemas,
        ...errorRulesApi.schemas,
        ...runsApi.schemas,
        ...bulkApi.schemas,
        ...webhooksApi.schemas,
        ...dependenciesApi.schemas,
      },
    },
  };
}
