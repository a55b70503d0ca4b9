// The OpenAPI paths and schemas of a run's allowance (docs/run-allowance.md), as plain objects for lib/agent-plane/openapi.ts
// to merge: `paths` into its paths, `schemas` into components.schemas.
import { json, ref, shared } from "./parts";

const agentKey = [{ apiKey: ["agent"] }];
const runIdParam = {
  name: "runId",
  in: "path",
  required: true,
  description: "The run id the agent plans its operations with.",
  schema: { type: "string", pattern: "^[^\\s/]{1,200}$" },
};
const answers = {
  "401": shared("Unauthorized"),
  "403": shared("Forbidden"),
  "404": shared("NotFound"),
  "500": shared("InternalError"),
};
const nullableInt = (maximum: number, description: string) => ({
  type: ["integer", "null"],
  minimum: 0,
  maximum,
  description,
});

export const paths = {
  "/api/v1/runs/{runId}": {
    parameters: [runIdParam],
    get: {
      operationId: "getRunAllowance",
      tags: ["runs"],
      summary: "A run's allowance and what its operations used of it (agent scope, own runs)",
      description:
        "Only the agent key that declared the allowance reads it; another key, and a run without one, are 404.",
      security: agentKey,
      responses: { "200": json("The allowance, used and left.", "RunAllowance"), ...answers },
    },
    put: {
      operationId: "putRunAllowance",
      tags: ["runs"],
      summary: "Declare or replace a run's deadline and retry allowance (agent scope, own runs)",
      description:
        "The bounds given replace the run's; one left out or null is no bound. What was used is kept. Across the " +
        "run's operations (those this key planned with this runId) the gate gives no retry that would leave after " +
        "`deadlineAt`, more than `maxRetries` retries in all, or more than `maxBackoffMs` of backoff in all: the " +
        "failure ends the operation FAILED, the decision's reason saying which bound, and the first such refusal " +
        "audits `run.allowance_exhausted` (a webhook event and the metric opledger_run_allowances_exhausted_total). " +
        "A run of another key (its allowance, or an operation another key planned with this runId) is 404 and " +
        "nothing is written. Audited as `run.allowance_set`.",
      security: agentKey,
      requestBody: { required: true, content: { "application/json": { schema: ref("RunAllowanceInput") } } },
      responses: {
        "200": json("Replaced.", "RunAllowance"),
        "201": json("Declared.", "RunAllowance"),
        "400": shared("InvalidBody"),
        ...answers,
      },
    },
  },
};

export const schemas = {
  RunAllowanceInput: {
    type: "object",
    additionalProperties: false,
    minProperties: 1,
    description: "At least one bound; null for none.",
    properties: {
      deadlineAt: { type: ["string", "null"], format: "date-time", description: "No retry leaves after it." },
      maxRetries: nullableInt(100_000, "Retries in all, across the run's operations."),
      maxBackoffMs: nullableInt(2_592_000_000, "Backoff in all, across the run's operations."),
    },
  },
  RunAllowance: {
    type: "object",
    required: ["runId", "deadlineAt", "maxRetries", "maxBackoffMs", "used", "remaining", "exhaustedAt", "updatedAt"],
    properties: {
      runId: { type: "string" },
      deadlineAt: { type: ["string", "null"], format: "date-time" },
      maxRetries: { type: ["integer", "null"] },
      maxBackoffMs: { type: ["integer", "null"] },
      used: {
        type: "object",
        required: ["retries", "backoffMs"],
        properties: { retries: { type: "integer" }, backoffMs: { type: "integer" } },
      },
      remaining: {
        type: "object",
        description: "What is left of each bound; null where there is none (`ms`: until the deadline).",
        required: ["retries", "backoffMs", "ms"],
        properties: {
          retries: { type: ["integer", "null"] },
          backoffMs: { type: ["integer", "null"] },
          ms: { type: ["integer", "null"] },
        },
      },
      exhaustedAt: {
        type: ["string", "null"],
        format: "date-time",
        description: "When the gate first refused a retry because of it.",
      },
      updatedAt: { type: "string", format: "date-time" },
    },
  },
};
