// A contract version's row as the API answers it and as the gate reads it. Pure, so the console's client code may
// import what depends on it without pulling in the database.
import type { ContractVersion } from "@/lib/platform/generated/prisma/client";
import type { EffectClass, ErrorRule, GateContract } from "@/lib/retry-gate/types";
import type { ContractView } from "./contract-schema";

/** What the gateway fields mean when a contract leaves them out (stored as null). */
export const GATEWAY_DEFAULTS = {
  timeoutMs: 30_000,
  keyFrom: "args",
  toolError: "fatal",
  mode: "enforce",
} as const satisfies Pick<ContractView, "timeoutMs" | "keyFrom" | "toolError" | "mode">;

export function contractView(row: ContractVersion): ContractView {
  return {
    tool: row.tool,
    version: row.version,
    effect: row.effect as EffectClass,
    idempotencyKey: row.idempotencyKey as ContractView["idempotencyKey"],
    reconcile: row.reconcile ? (JSON.parse(row.reconcile) as ContractView["reconcile"]) : null,
    approval: row.approval as ContractView["approval"],
    maxAttempts: row.maxAttempts,
    backoff: { baseMs: row.backoffBaseMs, maxMs: row.backoffMaxMs },
    keyRetentionMs: row.keyRetentionMs,
    dependency: row.dependency,
    description: row.description,
    approvalTtlMs: row.approvalTtlMs,
    unknownAlertMs: row.unknownAlertMs,
    approvals: row.approvals,
    timeoutMs: row.timeoutMs ?? GATEWAY_DEFAULTS.timeoutMs,
    keyFrom: row.keyFrom ?? GATEWAY_DEFAULTS.keyFrom,
    toolError: (row.toolError as ContractView["toolError"] | null) ?? GATEWAY_DEFAULTS.toolError,
    mode: (row.mode as ContractView["mode"] | null) ?? GATEWAY_DEFAULTS.mode,
    errorRules: errorRulesOf(row),
    traceArguments: row.traceArguments,
    author: row.author,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The contract version's error rules, in order ([] when it has none). */
export function errorRulesOf(row: Pick<ContractVersion, "errorRules">): ErrorRule[] {
  return row.errorRules ? (JSON.parse(row.errorRules) as ErrorRule[]) : [];
}

export function gateContract(row: ContractVersion): GateContract {
  return {
    effect: row.effect as EffectClass,
    approval: row.approval as GateContract["approval"],
    maxAttempts: row.maxAttempts,
    backoff: { baseMs: row.backoffBaseMs, maxMs: row.backoffMaxMs },
    keyRetentionMs: row.keyRetentionMs,
    approvalTtlMs: row.approvalTtlMs,
  };
}
