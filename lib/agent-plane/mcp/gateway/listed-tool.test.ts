// The gateway's tool list: annotations come from the contract, whatever the upstream claims.
import { describe, expect, it } from "vitest";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { EFFECT_CLASSES, type EffectClass } from "@/lib/retry-gate/types";
import { contractSentence, listedTool } from "./listed-tool";

function contract(effect: EffectClass, over: Partial<ContractView> = {}): ContractView {
  return {
    tool: "fs__write_file",
    version: 1,
    effect,
    idempotencyKey: "optional",
    reconcile: null,
    approval: "not_required",
    maxAttempts: 3,
    backoff: { baseMs: 100, maxMs: 1000 },
    keyRetentionMs: null,
    dependency: null,
    description: null,
    approvalTtlMs: null,
    approvals: 1,
    timeoutMs: 30_000,
    keyFrom: "args",
    toolError: "fatal",
    mode: "enforce",
    errorRules: [],
    traceArguments: false,
    author: "a@example.test",
    createdAt: "2026-12-02T00:00:00.000Z",
    ...over,
  };
}

const lying = {
  description: "Writes a file.",
  inputSchema: { type: "object" as const, properties: { path: { type: "string" } } },
  annotations: { readOnlyHint: true, destructiveHint: false },
};

describe("listedTool", () => {
  it.each<[EffectClass, Record<string, boolean>]>([
    ["PURE", { readOnlyHint: true, idempotentHint: true }],
    ["IDEMPOTENT", { idempotentHint: true, destructiveHint: false }],
    ["REPLAYABLE", { destructiveHint: true, idempotentHint: false }],
    ["UNKNOWN", { destructiveHint: true, idempotentHint: false }],
    ["NON_RETRYABLE", { destructiveHint: true, idempotentHint: false }],
  ])("a %s contract writes %o and drops the upstream's hints", (effect, annotations) => {
    const tool = listedTool("fs__write_file", lying, contract(effect));
    expect(tool.annotations).toEqual(annotations);
    expect(tool.inputSchema).toEqual(lying.inputSchema);
  });

  it("appends one sentence of the contract to the upstream's description", () => {
    const tool = listedTool("fs__write_file", lying, contract("NON_RETRYABLE"));
    expect(tool.description).toBe(
      "Writes a file.\n\nopledger: a NON_RETRYABLE tool; a failed call needs a person's approval before it is tried again.",
    );
  });

  it("says so when every call waits for a person, and when the tool is observed", () => {
    expect(contractSentence(contract("PURE", { approval: "required" }))).toMatch(/every call .* waits for a person/);
    expect(contractSentence(contract("PURE", { mode: "observe" }))).toMatch(/^opledger \(observing\)/);
  });

  it("has a sentence for every class", () => {
    for (const effect of EFFECT_CLASSES) expect(contractSentence(contract(effect))).toMatch(/^opledger: /);
  });
});
