// The contract's vocabulary in the operator's words: what each side-effect class, key policy, reconcile method and approval setting means.
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { ApprovalPolicy, EffectClass, KeyPolicy } from "@/lib/retry-gate/types";

export interface Choice<T extends string> {
  value: T;
  label: string;
  help: string;
}

export function effectHelp(effect: EffectClass): string {
  switch (effect) {
    case "PURE":
      return "Changes nothing outside (a search, a read). Safe to repeat, so a timeout is retried automatically.";
    case "IDEMPOTENT":
      return "Repeating with the same idempotency key gives one result (a Stripe charge with a key). Retried with the same key.";
    case "REPLAYABLE":
      return "Safe to repeat only after checking a durable record (did the row get written?). A timeout is reconciled first.";
    case "UNKNOWN":
      return "The effect may have happened and we cannot prove it. A timeout stops the operation until someone reconciles it.";
    case "NON_RETRYABLE":
      return "Repeating could do harm (a second email, a second payout). A person must approve every retry.";
    default:
      return assertNever(effect, "effect class");
  }
}

export const EFFECT_CHOICES: Choice<EffectClass>[] = (
  ["PURE", "IDEMPOTENT", "REPLAYABLE", "UNKNOWN", "NON_RETRYABLE"] as const
).map((value) => ({ value, label: value, help: effectHelp(value) }));

export function keyPolicyHelp(policy: KeyPolicy): string {
  switch (policy) {
    case "required":
      return "Every call must carry an idempotency key; a plan without one is refused.";
    case "optional":
      return "Agents may send a key; without one the ledger makes one when the call is planned.";
    case "unsupported":
      return "The provider ignores keys, so a key cannot stop a repeat.";
    default:
      return assertNever(policy, "key policy");
  }
}

export const KEY_POLICY_CHOICES: Choice<KeyPolicy>[] = (["required", "optional", "unsupported"] as const).map(
  (value) => ({
    value,
    label: value,
    help: keyPolicyHelp(value),
  }),
);

export type ReconcileMethod = "none" | "manual" | "lookup";

export function reconcileHelp(method: ReconcileMethod): string {
  switch (method) {
    case "none":
      return "There is nothing to look up; a lost outcome is handled by the retry rules alone.";
    case "manual":
      return "A person checks the provider's dashboard and records what happened.";
    case "lookup":
      return "The console asks the provider by key (an HTTP GET) and shows the answer as evidence.";
    default:
      return assertNever(method, "reconcile method");
  }
}

export const RECONCILE_CHOICES: Choice<ReconcileMethod>[] = (["none", "manual", "lookup"] as const).map((value) => ({
  value,
  label: value,
  help: reconcileHelp(value),
}));

export function approvalLabel(approval: ApprovalPolicy): string {
  switch (approval) {
    case "required":
      return "every attempt";
    case "not_required":
      return "when the rules ask";
    default:
      return assertNever(approval, "approval policy");
  }
}

/** "86 400 000 ms" reads badly at 3 a.m.; "24 h" does not. Whole units only, otherwise the exact milliseconds. */
export function humanDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, "d"],
    [3_600_000, "h"],
    [60_000, "min"],
    [1_000, "s"],
  ];
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}
