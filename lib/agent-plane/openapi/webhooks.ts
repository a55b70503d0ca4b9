// The OpenAPI paths and schemas of webhooks (docs/operators.md#be-told-when-a-person-must-act), as plain
// objects for lib/agent-plane/openapi.ts to merge: `paths` into its paths, `schemas` into components.schemas. References point
// at the shared components there (Problem, InvalidBody, Unauthorized, Forbidden, PayloadTooLarge, InternalError,
// DatabaseBusy).
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from "@/lib/services/notify/event-types";
import { json, problem, ref, shared } from "./parts";

const listBody = (description: string, item: string) => ({
  description,
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: ["items", "nextCursor"],
        properties: { items: { type: "array", items: ref(item) }, nextCursor: { type: ["string", "null"] } },
      },
    },
  },
});
const adminKey = [{ apiKey: ["admin"] }];
const common = {
  "400": shared("InvalidBody"),
  "401": shared("Unauthorized"),
  "403": shared("Forbidden"),
  "500": shared("InternalError"),
  "503": shared("DatabaseBusy"),
};
const nameParam = {
  name: "name",
  in: "path",
  required: true,
  description: "The webhook's name: 1–64 letters, digits and . _ - (starting with a letter or digit).",
  schema: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" },
};
const notFound = problem("There is no such webhook.", ["not_found"]);
const conflict = problem(
  "The webhook exists and the request named no version, or another version than the current one; nothing changed.",
  ["webhook_conflict"],
);

export const paths = {
  "/api/v1/webhooks": {
    get: {
      operationId: "listWebhooks",
      tags: ["webhooks"],
      summary: "Every webhook",
      security: adminKey,
      responses: { "200": listBody("The webhooks, by name.", "Webhook"), ...common },
    },
  },
  "/api/v1/webhooks/{name}": {
    parameters: [nameParam],
    get: {
      operationId: "getWebhook",
      tags: ["webhooks"],
      summary: "One webhook",
      security: adminKey,
      responses: { "200": json("The webhook.", "Webhook"), "404": notFound, ...common },
    },
    put: {
      operationId: "putWebhook",
      tags: ["webhooks"],
      summary: "Create a webhook, or change it at the version you saw",
      description:
        "Creates the webhook (201), or changes it (200, a new `version`) when `expectedVersion` is its current version; " +
        "an update without it, or with an older one, is 409 and nothing changes. The same rules again change nothing. " +
        "`url` must be http(s) and pass the outbound rules (no private, link-local or metadata address unless the " +
        "server allows private ones), `secret` must name an OPLEDGER_SECRET_* variable whose value is a Standard " +
        "Webhooks secret (`whsec_...`; the value is never stored, returned or logged), and every event type must exist: " +
        "else 422 naming each field. Audited as `webhook.created` / `webhook.updated`.",
      security: adminKey,
      requestBody: { required: true, content: { "application/json": { schema: ref("WebhookInput") } } },
      responses: {
        "200": json("Changed, or already so.", "Webhook"),
        "201": json("Created.", "Webhook"),
        "409": conflict,
        "413": shared("PayloadTooLarge"),
        "422": problem("A field was refused; `errors` names each.", ["invalid_webhook"]),
        ...common,
      },
    },
    delete: {
      operationId: "deleteWebhook",
      tags: ["webhooks"],
      summary: "Delete a webhook (its pending deliveries are given up; the log stays)",
      security: adminKey,
      parameters: [
        {
          name: "expectedVersion",
          in: "query",
          required: false,
          description: "Delete only if this is still the current version (else 409).",
          schema: { type: "integer", minimum: 0 },
        },
      ],
      responses: {
        "204": { description: "Deleted; audited as `webhook.deleted`." },
        "404": notFound,
        "409": conflict,
        ...common,
      },
    },
  },
  "/api/v1/webhooks/{name}/test": {
    parameters: [nameParam],
    post: {
      operationId: "sendWebhookTestEvent",
      tags: ["webhooks"],
      summary: `Queue a signed \`${TEST_EVENT_TYPE}\` event for the webhook`,
      description: "Delivered like any event (signed, retried by the retry gate); audited as `webhook.test_sent`.",
      security: adminKey,
      responses: { "202": json("Queued.", "WebhookDelivery"), "404": notFound, ...common },
    },
  },
  "/api/v1/webhooks/{name}/deliveries": {
    parameters: [nameParam],
    get: {
      operationId: "listWebhookDeliveries",
      tags: ["webhooks"],
      summary: "The webhook's delivery log, newest first",
      security: adminKey,
      parameters: [
        {
          name: "limit",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 200, default: 50 },
        },
      ],
      responses: { "200": listBody("Deliveries, newest first.", "WebhookDelivery"), "404": notFound, ...common },
    },
  },
};

const eventTypes = { type: "array", items: { type: "string", enum: [...WEBHOOK_EVENT_TYPES] }, minItems: 1 };

export const schemas = {
  WebhookInput: {
    type: "object",
    additionalProperties: false,
    required: ["url", "events", "secret"],
    properties: {
      url: { type: "string", format: "uri", maxLength: 2000 },
      events: { ...eventTypes, maxItems: 20 },
      secret: {
        type: "string",
        pattern: "^OPLEDGER_SECRET_[A-Z0-9_]+$",
        description: "The name of the variable holding the whsec_ secret; never the secret itself.",
      },
      format: { type: "string", enum: [...WEBHOOK_FORMATS], default: "json" },
      expectedVersion: { type: "integer", minimum: 0, description: "Required to change an existing webhook." },
      reason: { type: "string", maxLength: 500, description: "Kept in the audit trail." },
    },
  },
  Webhook: {
    type: "object",
    required: ["name", "url", "events", "secret", "format", "version", "createdBy", "createdAt", "updatedAt"],
    properties: {
      name: { type: "string" },
      url: { type: "string" },
      events: eventTypes,
      secret: { type: "string", description: "The variable's name." },
      format: { type: "string", enum: [...WEBHOOK_FORMATS] },
      version: { type: "integer" },
      createdBy: { type: "string" },
      createdAt: { type: "string", format: "date-time" },
      updatedAt: { type: "string", format: "date-time" },
    },
  },
  WebhookDelivery: {
    type: "object",
    required: ["id", "webhook", "eventType", "eventKey", "status", "attempts", "createdAt"],
    properties: {
      id: { type: "string", description: "The webhook-id header: the same on every retry." },
      webhook: { type: "string" },
      eventType: { type: "string", enum: [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE] },
      eventKey: { type: "string" },
      status: { type: "string", enum: ["pending", "delivered", "failed"] },
      attempts: { type: "integer" },
      nextAttemptAt: { type: ["string", "null"], format: "date-time" },
      lastStatus: { type: ["integer", "null"] },
      lastError: { type: ["string", "null"] },
      createdAt: { type: "string", format: "date-time" },
      deliveredAt: { type: ["string", "null"], format: "date-time" },
    },
  },
};
