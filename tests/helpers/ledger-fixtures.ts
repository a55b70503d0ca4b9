// Contracts and actors for ledger tests: one realistic contract per effect class.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/ledger/actor";
import type { ContractBody } from "@/lib/ledger/contracts/contract-schema";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import type { EffectClass } from "@/lib/retry-gate/types";

export const agent: Actor = {
  type: "api_key",
  id: "test-agent-key",
  label: "test-agent (opl_test…)",
  scopes: ["agent"],
  person: null,
};
export const alice: Actor = { type: "user", id: "alice@example.test", label: "alice@example.test", role: "operator" };
export const bob: Actor = { type: "user", id: "bob@example.test", label: "bob@example.test", role: "operator" };
/** Another agent's key: it must not see or move the test agent's operations. */
export const otherAgent: Actor = {
  type: "api_key",
  id: "other-agent-key",
  label: "other (opl_o…)",
  scopes: ["agent"],
  person: null,
};
export const viewer: Actor = { type: "user", id: "vic", label: "vic@example.test", role: "viewer" };

export const T0 = new Date("2026-11-30T12:00:00.000Z");
export const at = (ms: number): Date => new Date(T0.getTime() + ms);

export function contractFor(effect: EffectClass, overrides: Partial<ContractBody> = {}): ContractBody {
  return {
    effect,
    idempotencyKey: effect === "IDEMPOTENT" ? "required" : "optional",
    reconcile: effect === "PURE" ? null : { method: "manual" },
    approval: "not_required",
    maxAttempts: 3,
    backoff: { baseMs: 100, maxMs: 1000 },
    keyRetentionMs: effect === "IDEMPOTENT" ? 86_400_000 : null,
    dependency: null,
    description: `${effect} test tool`,
    ...overrides,
  };
}

export async function withContract(
  ledger: Ledger,
  tool: string,
  effect: EffectClass,
  overrides: Partial<ContractBody> = {},
): Promise<void> {
  await putContract(ledger, tool, contractFor(effect, overrides), alice, T0);
}
