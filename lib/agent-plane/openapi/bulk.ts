// The OpenAPI paths and schemas of bulk actions (docs/operators.md#act-on-many-operations-at-once), as plain objects
// for lib/agent-plane/openapi.ts to merge: `paths` into its paths, `schemas` into components.schemas. References point at the
// shared components there (Problem, InvalidBody, Unauthorized, Forbidden, InternalError, DatabaseBusy).
import { BULK_ACTIONS, JOB_ITEMS_PAGE, MAX_BULK_OPERATIONS, PREVIEW_TTL_MS } from "@/lib/ledger/bulk/request";
import { SKIP_REASONS } from "@/lib/ledger/bulk/skip-reasons";
import { DECISION_ACTIONS, EFFECT_CLASSES, PHASES } from "@/lib/retry-gate/types";
import { json, problem, ref, shared } from "./parts";

const operatorKey = [{ apiKey: ["operator"] }];
const common = {
  "400": shared("InvalidBody"),
  "401": shared("Unauthorized"),
  "403": shared("Forbidden"),
  "413": shared("PayloadTooLarge"),
  "500": shared("InternalError"),
  "503": shared("DatabaseBusy"),
};
const jobIdParam = { name: "jobId", in: "path", required: true, schema: { type: "string" } };
const notFoundJob = problem("There is no such bulk job.", ["not_found"]);
const WILL_DO = ["lookup", "reconcile_applied", "reconcile_not_applied", "approve", "reject"];
const RESULTS = ["acted", "skipped", "stale", "failed"];

export const paths = {
  "/api/v1/bulk": {
    post: {
      operationId: "bulkAction",
      tags: ["operations"],
      summary: "Preview a bulk action (dryRun: true), or run a preview ({ previewId, reason })",
      description:
        "A preview is a dry run on the exact set: every operation matching `filter` (the fields of GET " +
        "/api/v1/operations plus a creation-time window) or each of `ids`, at most " +
        `${MAX_BULK_OPERATIONS.toLocaleString("en")}, grouped by tool and effect class, with what each will get ` +
        "(`willDo`, and `then`: what the gate decides right after) and what is skipped and why. It is frozen for " +
        `${PREVIEW_TTL_MS / 60_000} minutes and only the same key may run it. Running answers 202 with the job id: ` +
        "a background job acts on exactly the previewed operations, each through the same command as the single " +
        "action and with its own audit record; one that changed since the preview is reported `stale` and left " +
        "untouched. Approving, or reconciling with `approveRetry`, is the human gate: a key not bound to a person " +
        "is refused (`person_required`), and four-eyes is decided per operation (skipped in the preview). Before any " +
        "grant over NON_RETRYABLE tools the preview carries a `warning` with the count of effects that may happen " +
        "again.",
      security: operatorKey,
      requestBody: {
        required: true,
        content: { "application/json": { schema: { oneOf: [ref("BulkPreviewInput"), ref("BulkRunInput")] } } },
      },
      responses: {
        "200": json("The preview (dryRun: true).", "BulkPreview"),
        "202": json("The job started; follow it at GET /api/v1/bulk/{jobId}.", "BulkJobStarted"),
        ...common,
        "403": problem(
          "The key lacks the operator scope (agent keys), or the action grants attempts and the key is no person.",
          ["forbidden", "person_required"],
        ),
        "404": problem("No such preview, or another principal's (not revealed).", ["not_found"]),
        "409": problem("The preview was run already.", ["already_run"]),
        "410": problem(`The preview is older than ${PREVIEW_TTL_MS / 60_000} minutes: preview again.`, [
          "preview_expired",
        ]),
        "422": problem("Nothing matches, or more than the limit does (narrow the filter).", [
          "nothing_matches",
          "too_many_matches",
        ]),
      },
    },
  },
  "/api/v1/bulk/{jobId}": {
    get: {
      operationId: "getBulkJob",
      tags: ["operations"],
      summary: "A bulk job's status, counts and per-operation results",
      description: `Items in preview order, at most ${JOB_ITEMS_PAGE} a page; \`nextCursor\` continues.`,
      security: operatorKey,
      parameters: [
        jobIdParam,
        { name: "cursor", in: "query", schema: { type: "integer", minimum: 0 } },
        { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: JOB_ITEMS_PAGE } },
      ],
      responses: {
        "200": json("The job.", "BulkJob"),
        "400": shared("InvalidBody"),
        "401": shared("Unauthorized"),
        "403": shared("Forbidden"),
        "404": notFoundJob,
        "500": shared("InternalError"),
      },
    },
  },
  "/api/v1/bulk/{jobId}/cancel": {
    post: {
      operationId: "cancelBulkJob",
      tags: ["operations"],
      summary: "Stop a running bulk job after the batch in hand",
      description: "What was done stays done; the rest is left as it is and reported as not run. Audited.",
      security: operatorKey,
      parameters: [jobIdParam],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              additionalProperties: false,
              required: ["reason"],
              properties: { reason: { type: "string", minLength: 1, maxLength: 1000 } },
            },
          },
        },
      },
      responses: {
        "200": json("The job, with cancelRequested; it ends as cancelled.", "BulkJob"),
        ...common,
        "404": notFoundJob,
        "409": problem("The job has finished already.", ["job_finished"]),
      },
    },
  },
};

const filter = {
  type: "object",
  additionalProperties: false,
  properties: {
    phase: { type: "string", enum: [...PHASES] },
    tool: { type: "string", maxLength: 128 },
    effect: { type: "string", enum: [...EFFECT_CLASSES] },
    runId: { type: "string", maxLength: 200 },
    agentId: { type: "string", maxLength: 200 },
    createdBefore: { type: "string", format: "date-time" },
    createdAfter: { type: "string", format: "date-time" },
  },
};

const item = (extra: Record<string, unknown>) => ({
  type: "object",
  properties: {
    id: { type: "string" },
    tool: { type: "string" },
    effect: { type: "string" },
    phase: { type: "string" },
    ...extra,
  },
});

export const schemas = {
  BulkPreviewInput: {
    type: "object",
    additionalProperties: false,
    required: ["action", "dryRun"],
    description: "Exactly one of `filter` and `ids`. `outcome` and `evidence` are required for `reconcile` only.",
    properties: {
      action: { type: "string", enum: [...BULK_ACTIONS] },
      dryRun: { const: true },
      filter,
      ids: { type: "array", items: { type: "string", maxLength: 64 }, minItems: 1, maxItems: MAX_BULK_OPERATIONS },
      reason: { type: "string", maxLength: 1000 },
      outcome: { type: "string", enum: ["applied", "not_applied"] },
      evidence: {
        description:
          "What proves the outcome, for every operation of the set: any JSON value, as a single reconcile takes it.",
      },
      providerId: { type: "string", maxLength: 200 },
      approveRetry: { type: "boolean", description: "With not_applied: grant the next attempt (the human gate)." },
    },
  },
  BulkRunInput: {
    type: "object",
    additionalProperties: false,
    required: ["previewId", "reason"],
    properties: {
      previewId: { type: "string" },
      reason: { type: "string", minLength: 1, maxLength: 1000, description: "Recorded on every operation." },
    },
  },
  BulkPreview: {
    type: "object",
    properties: {
      previewId: { type: "string" },
      action: { type: "string", enum: [...BULK_ACTIONS] },
      matched: { type: "integer", description: "Acted on plus skipped." },
      expiresAt: { type: "string", format: "date-time" },
      byTool: { type: "object", additionalProperties: { type: "integer" } },
      byClass: { type: "object", additionalProperties: { type: "integer" } },
      groups: {
        type: "array",
        items: {
          type: "object",
          properties: {
            tool: { type: "string" },
            effect: { type: "string" },
            acting: { type: "integer" },
            skipped: { type: "integer" },
          },
        },
      },
      items: {
        type: "array",
        items: item({
          willDo: { type: "string", enum: WILL_DO },
          then: { type: ["string", "null"], enum: [...DECISION_ACTIONS, null] },
        }),
      },
      skipped: {
        type: "array",
        items: item({ why: { type: "string", enum: Object.keys(SKIP_REASONS) }, explanation: { type: "string" } }),
      },
      warning: {
        type: ["object", "null"],
        properties: {
          code: { const: "non_retryable_effects" },
          count: { type: "integer" },
          message: { type: "string" },
        },
      },
    },
  },
  BulkJobStarted: {
    type: "object",
    properties: { jobId: { type: "string" }, status: { const: "running" }, href: { type: "string" } },
  },
  BulkJob: {
    type: "object",
    properties: {
      jobId: { type: "string" },
      previewId: { type: "string" },
      action: { type: "string", enum: [...BULK_ACTIONS] },
      status: { type: "string", enum: ["running", "done", "cancelled"] },
      reason: { type: "string" },
      total: { type: "integer" },
      acted: { type: "integer" },
      skipped: { type: "integer" },
      stale: { type: "integer" },
      failed: { type: "integer" },
      pending: { type: "integer", description: "Not run yet (or never, once cancelled)." },
      cancelRequested: { type: "boolean" },
      startedAt: { type: ["string", "null"], format: "date-time" },
      finishedAt: { type: ["string", "null"], format: "date-time" },
      items: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            result: { type: ["string", "null"], enum: [...RESULTS, null] },
            detail: { type: ["string", "null"] },
          },
        },
      },
      nextCursor: { type: ["string", "null"] },
    },
  },
};
