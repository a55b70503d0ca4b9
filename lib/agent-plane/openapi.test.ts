// Checks the OpenAPI document looks like valid 3.1, covers every path of docs/api.md and has no dangling $ref.
import { describe, expect, it } from "vitest";
import { CONTRACT_MODES, TOOL_ERROR_MEANINGS } from "@/lib/ledger/contracts/contract-schema";
import { GATEWAY_DEFAULTS } from "@/lib/ledger/contracts/contract-view";
import { openApiDocument } from "./openapi";

const API_PATHS: [string, string[]][] = [
  ["/api/health", ["get"]],
  ["/api/v1/openapi.json", ["get"]],
  ["/api/v1/contracts", ["get"]],
  ["/api/v1/contracts/{tool}", ["get", "put"]],
  ["/api/v1/operations", ["get", "post"]],
  ["/api/v1/operations/{id}", ["get"]],
  ["/api/v1/operations/{id}/claim", ["post"]],
  ["/api/v1/operations/{id}/heartbeat", ["post"]],
  ["/api/v1/operations/{id}/dispatch", ["post"]],
  ["/api/v1/operations/{id}/outcome", ["post"]],
  ["/api/v1/operations/{id}/reconcile", ["post"]],
  ["/api/v1/operations/{id}/approve", ["post"]],
  ["/api/v1/operations/{id}/reject", ["post"]],
  ["/api/v1/metrics", ["get"]],
  ["/api/v1/operations/{id}/replay", ["post"]],
  ["/api/v1/bulk", ["post"]],
  ["/api/v1/bulk/{jobId}", ["get"]],
  ["/api/v1/bulk/{jobId}/cancel", ["post"]],
  ["/api/v1/webhooks", ["get"]],
  ["/api/v1/webhooks/{name}", ["get", "put", "delete"]],
  ["/api/v1/webhooks/{name}/test", ["post"]],
  ["/api/v1/webhooks/{name}/deliveries", ["get"]],
  ["/api/v1/dependencies/{name}/breaker", ["get", "put"]],
];

type Node = { [key: string]: unknown };

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

function child(node: unknown, ...keys: string[]): unknown {
  let current = node;
  for (const key of keys) {
    if (Array.isArray(current)) current = current[Number(key)];
    else if (isNode(current)) current = current[key];
    else return undefined;
  }
  return current;
}

function collectRefs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, found);
  else if (isNode(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") found.push(item);
      else collectRefs(item, found);
    }
  }
  return found;
}

/** Resolves a local JSON pointer such as #/components/schemas/Operation. */
function resolve(document: unknown, pointer: string): unknown {
  if (!pointer.startsWith("#/")) return undefined;
  const keys = pointer
    .slice(2)
    .split("/")
    .map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"));
  return child(document, ...keys);
}

/** Every problem `code` documented for one path and method, including the shared responses it refers to. */
function documentedCodes(document: unknown, path: string, method: string): Map<string, string[]> {
  const responses = child(document, "paths", path, method, "responses");
  const byStatus = new Map<string, string[]>();
  if (!isNode(responses)) return byStatus;
  for (const [status, raw] of Object.entries(responses)) {
    const response = isNode(raw) && typeof raw.$ref === "string" ? resolve(document, raw.$ref) : raw;
    const description = child(response, "description");
    const codes =
      typeof description === "string" ? [...description.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] ?? "") : [];
    byStatus.set(status, codes);
  }
  return byStatus;
}

describe("openApiDocument", () => {
  const document = openApiDocument();

  it("is an OpenAPI 3.1 document with info, paths and components", () => {
    expect(child(document, "openapi")).toBe("3.1.0");
    expect(typeof child(document, "info", "title")).toBe("string");
    expect(typeof child(document, "info", "version")).toBe("string");
    expect(isNode(child(document, "paths"))).toBe(true);
    expect(child(document, "components", "securitySchemes", "apiKey")).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });

  it.each(API_PATHS)("describes %s", (path, methods) => {
    for (const method of methods) {
      const operation = child(document, "paths", path, method);
      expect(isNode(operation), `${method.toUpperCase()} ${path}`).toBe(true);
      expect(isNode(child(operation, "responses"))).toBe(true);
    }
  });

  it("resolves every $ref inside the document", () => {
    const refs = collectRefs(document);
    expect(refs.length).toBeGreaterThan(20);
    const dangling = refs.filter((r) => resolve(document, r) === undefined);
    expect(dangling).toEqual([]);
  });

  it("gives every operation a unique operationId", () => {
    const ids = API_PATHS.flatMap(([path, methods]) =>
      methods.map((method) => child(document, "paths", path, method, "operationId")),
    );
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    ["/api/v1/operations", "post", "422", ["no_contract", "idempotency_key_reused"]],
    ["/api/v1/operations", "post", "400", ["invalid_body", "idempotency_key_required"]],
    ["/api/v1/operations", "post", "413", ["payload_too_large"]],
    ["/api/v1/operations", "post", "401", ["unauthorized"]],
    ["/api/v1/operations", "post", "403", ["forbidden"]],
    ["/api/v1/operations/{id}/claim", "post", "409", ["lease_held"]],
    ["/api/v1/operations/{id}/heartbeat", "post", "409", ["stale_fence"]],
    [
      "/api/v1/operations/{id}/dispatch",
      "post",
      "409",
      [
        "approval_required",
        "breaker_open",
        "budget_spent",
        "reconcile_required",
        "already_finished",
        "retry_not_due",
        "lease_expired",
        "stale_fence",
      ],
    ],
    [
      "/api/v1/operations/{id}/approve",
      "post",
      "409",
      ["not_awaiting_approval", "approval_expired", "already_approved"],
    ],
    ["/api/v1/operations/{id}/approve", "post", "403", ["person_required", "four_eyes"]],
    ["/api/v1/operations/{id}/reconcile", "post", "403", ["person_required", "four_eyes"]],
    ["/api/v1/operations/{id}/reconcile", "post", "409", ["already_approved"]],
    ["/api/v1/operations/{id}/dispatch", "post", "409", ["approval_expired"]],
    ["/api/v1/operations/{id}/claim", "post", "409", ["approval_expired"]],
    ["/api/v1/operations/{id}/reject", "post", "409", ["not_rejectable"]],
    ["/api/v1/operations/{id}/outcome", "post", "409", ["stale_fence", "not_dispatched"]],
    ["/api/v1/operations/{id}/reconcile", "post", "409", ["not_unknown", "stale_fence"]],
    ["/api/v1/operations/{id}", "get", "404", ["not_found"]],
    ["/api/v1/contracts/{tool}", "put", "400", ["invalid_body"]],
  ] as const)("documents %s %s %s with its codes", (path, method, status, codes) => {
    const documented = documentedCodes(document, path, method).get(status);
    expect(documented, `${method} ${path} ${status}`).toBeDefined();
    expect(documented).toEqual(expect.arrayContaining([...codes]));
  });

  it("describes the operation fields agents rely on", () => {
    const properties = child(document, "components", "schemas", "Operation", "properties");
    for (const field of ["id", "tool", "phase", "attempt", "idempotencyKey", "evidence", "fence", "decision"]) {
      expect(child(properties, field), field).toBeDefined();
    }
    expect(child(document, "paths", "/api/v1/metrics", "get", "responses", "200", "content")).toHaveProperty(
      "text/plain",
    );
  });

  it("describes the authority fields: approval deadline and quorum, audit labels, contract approval settings", () => {
    const schemas = child(document, "components", "schemas");
    const operation = child(schemas, "Operation");
    expect(child(operation, "properties", "approvalExpiresAt", "format")).toBe("date-time");
    expect(child(operation, "properties", "approvals", "required")).toEqual(["given", "needed"]);
    expect(child(operation, "required")).toEqual(expect.arrayContaining(["approvalExpiresAt", "approvals"]));
    expect(child(schemas, "Phase", "enum")).toContain("EXPIRED");
    expect(child(schemas, "AuditEvent", "properties", "actorLabel", "type")).toEqual(["string", "null"]);
    for (const name of ["ContractInput", "Contract"]) {
      expect(child(schemas, name, "properties", "approvalTtlMs"), name).toBeDefined();
      expect(child(schemas, name, "properties", "approvals"), name).toBeDefined();
    }
    expect(child(schemas, "ContractInput", "properties", "approvalTtlMs")).toMatchObject({
      minimum: 1000,
      maximum: 30 * 86_400_000,
    });
    expect(child(schemas, "ContractInput", "properties", "approvals")).toMatchObject({ minimum: 1, maximum: 10 });
  });

  it("describes the MCP gateway's contract fields: optional in the body, always in the answer, with their defaults", () => {
    const schemas = child(document, "components", "schemas");
    expect(child(schemas, "Contract", "required")).toEqual(
      expect.arrayContaining(["timeoutMs", "keyFrom", "toolError", "mode"]),
    );
    expect(child(schemas, "ContractInput", "required")).not.toEqual(expect.arrayContaining(["timeoutMs"]));
    for (const name of ["ContractInput", "Contract"]) {
      const properties = child(schemas, name, "properties");
      expect(child(properties, "timeoutMs"), name).toMatchObject({ minimum: 100, maximum: 600_000 });
      for (const field of ["timeoutMs", "keyFrom", "toolError", "mode"] as const) {
        expect(child(properties, field, "default"), `${name}.${field}`).toBe(GATEWAY_DEFAULTS[field]);
      }
    }
    expect(child(schemas, "Contract", "properties", "toolError", "enum")).toEqual([...TOOL_ERROR_MEANINGS]);
    expect(child(schemas, "Contract", "properties", "mode", "enum")).toEqual([...CONTRACT_MODES]);
    // Null asks for the default, so the body's enums admit it.
    expect(child(schemas, "ContractInput", "properties", "mode", "enum")).toEqual([...CONTRACT_MODES, null]);
    expect(child(schemas, "ContractInput", "properties", "timeoutMs", "type")).toEqual(["integer", "null"]);
  });

  it("takes approve and reject without an actor, which is ignored", () => {
    const input = child(document, "components", "schemas", "ApprovalInput");
    expect(child(input, "required")).toEqual(["reason"]);
    expect(child(input, "properties", "actor", "description")).toMatch(/ignored/);
    for (const action of ["approve", "reject"]) {
      expect(child(document, "paths", `/api/v1/operations/{id}/${action}`, "post", "requestBody", "content")).toEqual({
        "application/json": { schema: { $ref: "#/components/schemas/ApprovalInput" } },
      });
    }
  });

  it("names the metrics scope, and guards the metrics endpoint with it", () => {
    expect(child(document, "components", "securitySchemes", "apiKey", "description")).toContain("`metrics`");
    expect(child(document, "paths", "/api/v1/metrics", "get", "security")).toEqual([
      { apiKey: ["metrics"] },
      { apiKey: ["operator"] },
    ]);
  });

  it("says that another agent key's operation is not found", () => {
    expect(child(document, "components", "responses", "NotFound", "description")).toMatch(/another key planned/);
  });

  it("is plain JSON", () => {
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });
});
