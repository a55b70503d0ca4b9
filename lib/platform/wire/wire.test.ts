// The wire types (lib/platform/wire) are the server's: the same types as its views and its request schemas (checked by tsc on
// this file), and the fields the OpenAPI document describes (checked when it runs).
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { contractBodySchema, ContractView } from "@/lib/ledger/contracts/contract-schema";
import type { runAllowanceBody } from "@/lib/ledger/runs/run-allowances";
import type {
  attemptSchema,
  auditEventSchema,
  contractSchema,
  decisionSchema,
  leaseSchema,
  OpledgerClient,
  operationDetailSchema,
  operationSchema,
} from "@/lib/executor/client";
import type * as answers from "@/lib/platform/wire/answers";
import type * as requests from "@/lib/platform/wire/requests";
import { openApiDocument } from "@/lib/agent-plane/openapi";
import type { ProblemInit } from "@/lib/platform/http/problem";
import type {
  claimBody,
  decisionBody,
  dispatchBody,
  heartbeatBody,
  listQuery,
  outcomeBody,
  planBody,
  reconcileBody,
} from "@/lib/agent-plane/schemas";

/** Each field of T, and whether a value of T must have it; an object of this type names every field, and no other. */
type Fields<T> = { [K in keyof T]-?: object extends Pick<T, K> ? "optional" : "required" };

type Node = Record<string, unknown>;
const schemas = (openApiDocument() as { components: { schemas: Record<string, Node> } }).components.schemas;

/** The document's schema `name` has exactly these properties, and requires only fields the type requires. */
function expectFields(name: string, fields: Record<string, "required" | "optional">, part?: number): void {
  const schema = part === undefined ? schemas[name] : (schemas[name]?.allOf as Node[])[part];
  const properties = Object.keys(schema?.properties ?? {});
  expect(properties.sort(), name).toEqual(Object.keys(fields).sort());
  const required = (schema?.required ?? []) as string[];
  expect(
    required.filter((field) => fields[field] !== "required"),
    `${name} requires what the type does not`,
  ).toEqual([]);
}

describe("the answers of lib/platform/wire", () => {
  // The operation, attempt, audit, detail, page, lease and run allowance views ARE these types (lib/ledger declares
  // them as aliases of lib/platform/wire/answers.ts). The contract view is the contract schema's own, and the problem
  // is the HTTP platform's: those two are checked here.
  it("are the server's views", () => {
    expectTypeOf<answers.Contract>().toEqualTypeOf<ContractView>();
    expectTypeOf<Omit<answers.Problem, "type">>().toEqualTypeOf<ProblemInit>();
  });

  it("are the answers the OpenAPI document describes, field for field", () => {
    const operation = {
      id: "required",
      tool: "required",
      contractVersion: "required",
      effect: "required",
      idempotencyKey: "required",
      args: "required",
      runId: "required",
      agentId: "required",
      via: "required",
      wouldHave: "required",
      replayOf: "required",
      repeatOf: "required",
      deliveredAt: "required",
      phase: "required",
      attempt: "required",
      maxAttempts: "required",
      evidence: "required",
      evidenceDetail: "required",
      providerId: "required",
      approvedAttempt: "required",
      approvalExpiresAt: "required",
      approvals: "required",
      rejectionReason: "required",
      lastError: "required",
      notBefore: "required",
      leaseOwner: "required",
      leaseExpiresAt: "required",
      fence: "required",
      createdAt: "required",
      updatedAt: "required",
      decision: "required",
      traceId: "required",
    } as const satisfies Fields<answers.Operation>;
    expectFields("Operation", operation);
    const { attempts, audit, replays, repeated } = {
      ...operation,
      attempts: "required",
      audit: "required",
      replays: "required",
      repeated: "required",
    } as const satisfies Fields<answers.OperationDetail>;
    expectFields("OperationDetail", { attempts, audit, replays, repeated }, 1);
    expectFields("Attempt", {
      number: "required",
      workerId: "required",
      fence: "required",
      result: "required",
      errorKind: "required",
      httpStatus: "required",
      errorMessage: "required",
      backoffMs: "required",
      providerId: "required",
      dispatchedAt: "required",
      finishedAt: "required",
      traceId: "required",
    } satisfies Fields<answers.Attempt>);
    expectFields("AuditEvent", {
      id: "required",
      subjectType: "required",
      subjectId: "required",
      actorType: "required",
      actorId: "required",
      onBehalfOf: "required",
      actorLabel: "required",
      action: "required",
      fromPhase: "required",
      toPhase: "required",
      reason: "required",
      data: "required",
      createdAt: "required",
    } satisfies Fields<answers.AuditEvent>);
    expectFields("Lease", {
      fence: "required",
      leaseExpiresAt: "required",
      operation: "required",
    } satisfies Fields<answers.Lease>);
    expectFields("OperationList", { items: "required", nextCursor: "required" } satisfies Fields<
      answers.Page<answers.Operation>
    >);
    expectFields("Contract", {
      tool: "required",
      version: "required",
      effect: "required",
      idempotencyKey: "required",
      reconcile: "required",
      approval: "required",
      maxAttempts: "required",
      backoff: "required",
      keyRetentionMs: "required",
      dependency: "required",
      description: "required",
      approvalTtlMs: "required",
      unknownAlertMs: "optional",
      approvals: "required",
      timeoutMs: "required",
      keyFrom: "required",
      toolError: "required",
      mode: "required",
      errorRules: "required",
      traceArguments: "required",
      author: "required",
      createdAt: "required",
    } satisfies Fields<answers.Contract>);
    expectFields("ReconcileMethod", {
      method: "required",
      urlTemplate: "optional",
      timeoutMs: "optional",
      authHeaderEnv: "optional",
      providerIdField: "optional",
      statusField: "optional",
      appliedValues: "optional",
      auto: "optional",
    } satisfies Fields<answers.ReconcileRule>);
    expectFields("RunAllowance", {
      runId: "required",
      deadlineAt: "required",
      maxRetries: "required",
      maxBackoffMs: "required",
      used: "required",
      remaining: "required",
      exhaustedAt: "required",
      updatedAt: "required",
    } satisfies Fields<answers.RunAllowance>);
    expectFields("Problem", {
      type: "required",
      title: "required",
      status: "required",
      detail: "required",
      code: "required",
      errors: "optional",
      decision: "optional",
      operationId: "optional",
    } satisfies Fields<answers.Problem>);
  });
});

describe("the requests of lib/platform/wire", () => {
  it("are what the server's schemas take", () => {
    // A client may hand any value as `args` and `evidence` (unknown); the server takes JSON values of it.
    expectTypeOf<Omit<requests.PlanInput, "args">>().toEqualTypeOf<Omit<z.input<typeof planBody>, "args">>();
    expectTypeOf<z.input<typeof planBody>["args"]>().toExtend<requests.PlanInput["args"]>();
    expectTypeOf<requests.ClaimInput>().toEqualTypeOf<z.input<typeof claimBody>>();
    expectTypeOf<requests.HeartbeatInput>().toEqualTypeOf<z.input<typeof heartbeatBody>>();
    expectTypeOf<requests.DispatchInput>().toEqualTypeOf<z.input<typeof dispatchBody>>();
    expectTypeOf<requests.OutcomeInput>().toEqualTypeOf<z.input<typeof outcomeBody>>();
    expectTypeOf<Omit<requests.ReconcileInput, "evidence">>().toEqualTypeOf<
      Omit<z.input<typeof reconcileBody>, "evidence">
    >();
    expectTypeOf<requests.DecisionInput>().toEqualTypeOf<z.input<typeof decisionBody>>();
    expectTypeOf<requests.ContractInput>().toEqualTypeOf<z.input<typeof contractBodySchema>>();
    expectTypeOf<requests.RunAllowanceInput>().toEqualTypeOf<z.input<typeof runAllowanceBody>>();
    // The query string's limit is text the schema coerces into the number a client passes.
    expectTypeOf<Omit<requests.OperationQuery, "limit">>().toEqualTypeOf<Omit<z.input<typeof listQuery>, "limit">>();
    expectTypeOf<requests.OperationQuery["limit"]>().toEqualTypeOf<z.output<typeof listQuery>["limit"] | undefined>();
  });

  it("are the bodies the OpenAPI document describes, field for field", () => {
    expectFields("PlanInput", {
      tool: "required",
      args: "required",
      idempotencyKey: "optional",
      runId: "optional",
      agentId: "optional",
      claim: "optional",
    } satisfies Fields<requests.PlanInput>);
    expectFields("ClaimInput", { workerId: "required", leaseMs: "required" } satisfies Fields<requests.ClaimInput>);
    expectFields("HeartbeatInput", {
      fence: "required",
      leaseMs: "required",
    } satisfies Fields<requests.HeartbeatInput>);
    expectFields("DispatchInput", { fence: "required" } satisfies Fields<requests.DispatchInput>);
    expectFields("OutcomeInput", {
      fence: "required",
      result: "required",
      providerId: "optional",
      error: "optional",
    } satisfies Fields<requests.OutcomeInput>);
    expectFields("ReconcileInput", {
      fence: "optional",
      outcome: "required",
      providerId: "optional",
      evidence: "required",
      reason: "optional",
      approveRetry: "optional",
    } satisfies Fields<requests.ReconcileInput>);
    expectFields("ApprovalInput", { actor: "optional", reason: "required" } satisfies Fields<requests.DecisionInput>);
    expectFields("RunAllowanceInput", {
      deadlineAt: "optional",
      maxRetries: "optional",
      maxBackoffMs: "optional",
    } satisfies Fields<requests.RunAllowanceInput>);
    expectFields("ContractInput", {
      effect: "required",
      idempotencyKey: "required",
      reconcile: "required",
      approval: "required",
      maxAttempts: "required",
      backoff: "required",
      keyRetentionMs: "optional",
      dependency: "optional",
      description: "optional",
      approvalTtlMs: "optional",
      unknownAlertMs: "optional",
      approvals: "optional",
      timeoutMs: "optional",
      keyFrom: "optional",
      toolError: "optional",
      mode: "optional",
      errorRules: "optional",
      traceArguments: "optional",
      expectedVersion: "optional",
    } satisfies Fields<requests.ContractInput>);
  });
});

/** The fields a client schema reads. */
type Reads<S extends { shape: object }> = keyof S["shape"];

describe("the client SDK (lib/executor/client.ts)", () => {
  it("reads only fields the answers have", () => {
    expectTypeOf<Reads<typeof decisionSchema>>().toExtend<keyof answers.Decision>();
    expectTypeOf<Reads<typeof operationSchema>>().toExtend<keyof answers.Operation>();
    expectTypeOf<Reads<typeof operationDetailSchema>>().toExtend<keyof answers.OperationDetail>();
    expectTypeOf<Reads<typeof attemptSchema>>().toExtend<keyof answers.Attempt>();
    expectTypeOf<Reads<typeof auditEventSchema>>().toExtend<keyof answers.AuditEvent>();
    expectTypeOf<Reads<typeof leaseSchema>>().toExtend<keyof answers.Lease>();
    expectTypeOf<Reads<typeof contractSchema>>().toExtend<keyof answers.Contract>();
  });

  it("sends the API's request bodies", () => {
    expectTypeOf<Parameters<OpledgerClient["planOperation"]>[0]>().toEqualTypeOf<requests.PlanInput>();
    expectTypeOf<Parameters<OpledgerClient["reportOutcome"]>[1]>().toEqualTypeOf<requests.OutcomeInput>();
    expectTypeOf<Parameters<OpledgerClient["reconcile"]>[1]>().toEqualTypeOf<requests.ReconcileInput>();
    expectTypeOf<Parameters<OpledgerClient["putContract"]>[1]>().toEqualTypeOf<requests.ContractInput>();
    expectTypeOf<Parameters<OpledgerClient["putRunAllowance"]>[1]>().toEqualTypeOf<requests.RunAllowanceInput>();
    expectTypeOf<Parameters<OpledgerClient["listOperations"]>[0]>().toEqualTypeOf<
      requests.OperationQuery | undefined
    >();
  });
});
