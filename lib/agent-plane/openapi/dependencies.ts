// The OpenAPI paths and schemas of tunable breakers (docs/operators.md#tune-a-breaker), as plain objects for
// lib/agent-plane/openapi.ts to merge: `paths` into its paths, `schemas` into components.schemas. References point at the
// shared components there (Problem, InvalidBody, Unauthorized, Forbidden, NotFound, InternalError, DatabaseBusy).
import { BREAKER_SETTING_BOUNDS } from "@/lib/ledger/dependencies/breaker-settings-schema";
import { json, problem, ref, shared } from "./parts";

const adminKey = [{ apiKey: ["admin"] }];
const nameParam = {
  name: "name",
  in: "path",
  required: true,
  description: "The dependency's name, as a contract's `dependency` gives it.",
  schema: { type: "string", pattern: "^[a-zA-Z0-9][a-zA-Z0-9._:-]{0,63}$" },
};
const bounded = (name: keyof typeof BREAKER_SETTING_BOUNDS, description: string) => ({
  type: "integer",
  minimum: BREAKER_SETTING_BOUNDS[name].min,
  maximum: BREAKER_SETTING_BOUNDS[name].max,
  description,
});
const settingsFields = {
  failureThreshold: bounded("failureThreshold", "Consecutive failed or lost calls that open the breaker."),
  cooldownMs: bounded("cooldownMs", "How long an open breaker fails calls fast before a probe may go."),
  probes: bounded("probes", "Half-open probes that must succeed in a row, one at a time, before it closes."),
};

export const paths = {
  "/api/v1/dependencies/{name}/breaker": {
    parameters: [nameParam],
    get: {
      operationId: "getBreakerSettings",
      tags: ["dependencies"],
      summary: "A dependency's breaker settings and their versions (admin scope)",
      security: adminKey,
      responses: {
        "200": json("The settings in force and the versions, newest first.", "BreakerSettingsHistory"),
        "401": shared("Unauthorized"),
        "403": shared("Forbidden"),
        "404": shared("NotFound"),
        "500": shared("InternalError"),
      },
    },
    put: {
      operationId: "putBreakerSettings",
      tags: ["dependencies"],
      summary: "Tune a dependency's breaker (admin scope)",
      description:
        "Writes a new immutable settings version with the reason, updates the breaker the gate reads and audits " +
        "`dependency.settings_changed`, in one transaction. `expectedVersion` is the settings version the editor " +
        "saw (0 before any edit): another one is 409 and nothing changes. The settings already in force answer 200 " +
        "with `changed: false` and write nothing. The breaker's state and failure count are kept.",
      security: adminKey,
      requestBody: { required: true, content: { "application/json": { schema: ref("BreakerSettingsInput") } } },
      responses: {
        "200": json("The settings version in force after the request.", "BreakerSettingsResult"),
        "400": shared("InvalidBody"),
        "401": shared("Unauthorized"),
        "403": shared("Forbidden"),
        "404": shared("NotFound"),
        "409": problem("Another edit was saved since expectedVersion.", ["write_conflict"]),
        "413": shared("PayloadTooLarge"),
        "500": shared("InternalError"),
        "503": shared("DatabaseBusy"),
      },
    },
  },
};

const settingsVersion = {
  type: "object",
  required: ["version", "failureThreshold", "cooldownMs", "probes", "author", "reason", "createdAt"],
  properties: {
    version: { type: "integer", minimum: 0, description: "0: the defaults, never edited." },
    ...settingsFields,
    author: { type: "string", description: "Who saved it, as people read it." },
    reason: { type: ["string", "null"] },
    createdAt: { type: "string", format: "date-time" },
  },
};

export const schemas = {
  BreakerSettingsInput: {
    type: "object",
    additionalProperties: false,
    required: ["failureThreshold", "cooldownMs", "probes", "reason", "expectedVersion"],
    properties: {
      ...settingsFields,
      reason: { type: "string", minLength: 3, maxLength: 500, description: "Kept with the version and audited." },
      expectedVersion: { type: "integer", minimum: 0, description: "The settings version being replaced." },
    },
  },
  BreakerSettingsVersion: settingsVersion,
  BreakerSettingsResult: {
    allOf: [
      ref("BreakerSettingsVersion"),
      {
        type: "object",
        required: ["dependency", "changed"],
        properties: {
          dependency: { type: "string" },
          changed: { type: "boolean", description: "False when these settings were already in force." },
        },
      },
    ],
  },
  BreakerSettingsHistory: {
    type: "object",
    required: ["dependency", "current", "versions"],
    properties: {
      dependency: { type: "string" },
      current: ref("BreakerSettingsVersion"),
      versions: { type: "array", items: ref("BreakerSettingsVersion"), description: "Newest first, at most 50." },
    },
  },
};
