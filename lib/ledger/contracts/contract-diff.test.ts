// The field-by-field diff of two contract versions: pure, so it is tested on plain views.
import { describe, expect, it } from "vitest";
import { contractBodySchema, type ContractView } from "./contract-schema";
import { CONTRACT_FIELDS, contractFieldValue, diffContracts, formatContractValue } from "./contract-diff";

const v1: ContractView = {
  tool: "payments.charge",
  version: 1,
  effect: "IDEMPOTENT",
  idempotencyKey: "required",
  reconcile: null,
  approval: "not_required",
  maxAttempts: 3,
  backoff: { baseMs: 100, maxMs: 1000 },
  keyRetentionMs: 86_400_000,
  dependency: "stripe",
  description: "Charge a card",
  approvalTtlMs: null,
  unknownAlertMs: null,
  approvals: 1,
  timeoutMs: 30_000,
  keyFrom: "args",
  toolError: "fatal",
  mode: "enforce",
  errorRules: [],
  traceArguments: false,
  author: "alice@example.test",
  createdAt: "2026-11-30T12:00:00.000Z",
};

describe("diffContracts", () => {
  it("finds nothing between a version and itself, whatever its author and time", () => {
    expect(
      diffContracts(v1, { ...v1, version: 2, author: "bob@example.test", createdAt: "2026-12-01T00:00:00.000Z" }),
    ).toEqual([]);
  });

  it("lists each changed rule with its label, before and after, in form order", () => {
    const v2: ContractView = {
      ...v1,
      version: 2,
      maxAttempts: 5,
      backoff: { baseMs: 100, maxMs: 2000 },
      dependency: null,
      effect: "REPLAYABLE",
    };
    expect(diffContracts(v1, v2)).toEqual([
      { path: "effect", label: "Side-effect class", before: "IDEMPOTENT", after: "REPLAYABLE" },
      { path: "maxAttempts", label: "Max attempts", before: 3, after: 5 },
      { path: "backoff.maxMs", label: "Backoff max (ms)", before: 1000, after: 2000 },
      { path: "dependency", label: "Dependency", before: "stripe", after: null },
    ]);
  });

  it("shows a new lookup as the method and each lookup setting that is now set", () => {
    const v2: ContractView = {
      ...v1,
      reconcile: {
        method: "lookup",
        urlTemplate: "https://api.example.test/charges?key={idempotencyKey}",
        appliedValues: ["succeeded", "pending"],
        auto: true,
      },
    };
    expect(
      diffContracts(v1, v2).map((c) => [c.path, formatContractValue(c.before), formatContractValue(c.after)]),
    ).toEqual([
      ["reconcile.method", "none", "lookup"],
      ["reconcile.urlTemplate", "—", "https://api.example.test/charges?key={idempotencyKey}"],
      ["reconcile.appliedValues", "—", "succeeded, pending"],
      ["reconcile.auto", "—", "yes"],
    ]);
  });

  it("compares lists by their items, in order", () => {
    const a: ContractView = {
      ...v1,
      reconcile: { method: "lookup", urlTemplate: "https://x.test/{idempotencyKey}", appliedValues: ["a", "b"] },
    };
    expect(diffContracts(a, { ...a, reconcile: { ...a.reconcile!, appliedValues: ["a", "b"] } })).toEqual([]);
    expect(
      diffContracts(a, { ...a, reconcile: { ...a.reconcile!, appliedValues: ["b", "a"] } }).map((c) => c.path),
    ).toEqual(["reconcile.appliedValues"]);
  });

  it("names the MCP gateway's fields, so a switch to observe mode or a new key template shows in the diff", () => {
    const v2: ContractView = {
      ...v1,
      timeoutMs: 5000,
      keyFrom: "refund:{order_id}",
      toolError: "unknown",
      mode: "observe",
    };
    expect(diffContracts(v1, v2)).toEqual([
      { path: "timeoutMs", label: "Upstream timeout (ms)", before: 30_000, after: 5000 },
      { path: "keyFrom", label: "Idempotency key from", before: "args", after: "refund:{order_id}" },
      { path: "toolError", label: "A tool error means", before: "fatal", after: "unknown" },
      { path: "mode", label: "Mode", before: "enforce", after: "observe" },
    ]);
  });

  it("shows error rules as numbered lines, so a reordering or a new rule is a change", () => {
    const v2: ContractView = {
      ...v1,
      errorRules: [
        { when: { httpStatus: 409, message: "in progress" }, then: "transient", why: "still in progress" },
        { when: { httpStatus: [500, 599] }, then: "unknown" },
      ],
    };
    expect(diffContracts(v1, v2)).toEqual([
      {
        path: "errorRules",
        label: "Error rules",
        before: [],
        after: [
          "1. status 409 with a message matching /in progress/ -> transient (still in progress)",
          "2. status 500-599 -> unknown",
        ],
      },
    ]);
    const swapped = { ...v2, errorRules: [...v2.errorRules].reverse() };
    expect(diffContracts(v2, swapped).map((c) => c.path)).toEqual(["errorRules"]);
  });

  it("covers every rule of the contract body", () => {
    const paths = CONTRACT_FIELDS.map((f) => f.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of paths) expect(() => contractFieldValue(v1, path)).not.toThrow();
    // A field added to the schema breaks this until the diff (and so the form's order) names it.
    const roots = new Set(paths.map((p) => p.split(".")[0]));
    const rules = Object.keys(contractBodySchema.shape).filter((k) => k !== "expectedVersion");
    expect(rules.filter((k) => !roots.has(k))).toEqual([]);
  });
});

describe("formatContractValue", () => {
  it.each([
    [null, "—"],
    ["", "—"],
    [true, "yes"],
    [false, "no"],
    [0, "0"],
    [[], "—"],
    [["x", "y"], "x, y"],
    ["REPLAYABLE", "REPLAYABLE"],
  ] as const)("prints %j as %s", (value, shown) => {
    expect(formatContractValue(value)).toBe(shown);
  });
});
