// The contract's vocabulary in the operator's words: what each side-effect class, key policy, reconcile method,
// approval setting, tool-error meaning and gateway mode means.
import {
  CONTRACT_MODES,
  TOOL_ERROR_MEANINGS,
  type ContractBody,
  type ContractView,
} from "@/lib/ledger/contracts/contract-schema";
import { GATEWAY_DEFAULTS } from "@/lib/ledger/contracts/contract-view";
import { EFFECT_CLASSES, type ApprovalPolicy, type EffectClass, type KeyPolicy } from "@/lib/retry-gate/types";

export interface Choice<T extends string> {
  value: T;
  label: string;
  help: string;
  /** What the contract means when it leaves the field out; marked "default" beside the label. */
  isDefault?: boolean;
}

/** "none" is the form's word for a contract without a reconcile block; the others are the schema's methods. */
export type ReconcileMethod = "none" | NonNullable<ContractBody["reconcile"]>["method"];

// Keyed by the core's types: a class, policy or method added there breaks the build here until it is explained.
const EFFECT_HELP: Record<EffectClass, string> = {
  PURE: "Changes nothing outside (a search, a read). Safe to repeat, so a timeout is retried automatically.",
  IDEMPOTENT:
    "Repeating with the same idempotency key gives one result (a Stripe charge with a key). Retried with the same key.",
  REPLAYABLE:
    "Safe to repeat only after checking a durable record (did the row get written?). A timeout is reconciled first.",
  UNKNOWN:
    "The effect may have happened and we cannot prove it. A timeout stops the operation until someone reconciles it.",
  NON_RETRYABLE: "Repeating could do harm (a second email, a second payout). A person must approve every retry.",
};

const KEY_POLICY_HELP: Record<KeyPolicy, string> = {
  required: "Every call must carry an idempotency key; a plan without one is refused.",
  optional: "Agents may send a key; without one the ledger makes one when the call is planned.",
  unsupported: "The provider ignores keys, so a key cannot stop a repeat.",
};

const RECONCILE_HELP: Record<ReconcileMethod, string> = {
  none: "There is nothing to look up; a lost outcome is handled by the retry rules alone.",
  manual: "A person checks the provider's dashboard and records what happened.",
  lookup: "The console asks the provider by key (an HTTP GET) and shows the answer as evidence.",
};

const APPROVAL_WORDS: Record<ApprovalPolicy, { label: string; help: string }> = {
  not_required: {
    label: "When the rules ask",
    help: "A person is asked only when the class or the budget says so (NON_RETRYABLE retries, spent budgets).",
  },
  required: {
    label: "Every attempt",
    help: "A person approves every attempt, the first one included, whatever the class says.",
  },
};

const TOOL_ERROR_HELP: Record<ContractView["toolError"], string> = {
  fatal: "The upstream refused the call for good (bad arguments, not allowed): the operation fails and is not retried.",
  transient: "The upstream failed this time and nothing happened: the gate may retry under the class's rules.",
  unknown:
    "A failed call may still have had its effect: the outcome is UNKNOWN until someone reconciles it, never retried blindly.",
};

const MODE_HELP: Record<ContractView["mode"], string> = {
  enforce:
    "The gateway applies the contract: it refuses, holds for approval or sends to reconcile as the gate decides.",
  observe: "Forward every call and record what enforcing would have done, without refusing or holding anything.",
};

export const effectHelp = (effect: EffectClass): string => EFFECT_HELP[effect];
export const keyPolicyHelp = (policy: KeyPolicy): string => KEY_POLICY_HELP[policy];
export const reconcileHelp = (method: ReconcileMethod): string => RECONCILE_HELP[method];
export const toolErrorHelp = (meaning: ContractView["toolError"]): string => TOOL_ERROR_HELP[meaning];
export const modeHelp = (mode: ContractView["mode"]): string => MODE_HELP[mode];
/** The setting inside a sentence or a table cell: "every attempt". */
export const approvalLabel = (approval: ApprovalPolicy): string => APPROVAL_WORDS[approval].label.toLowerCase();

/** Choices named by their value (the word agents send), in the order of the description table. */
function valueChoices<T extends string>(help: Record<T, string>): Choice<T>[] {
  return (Object.keys(help) as T[]).map((value) => ({ value, label: value, help: help[value] }));
}

export const EFFECT_CHOICES: Choice<EffectClass>[] = EFFECT_CLASSES.map((value) => ({
  value,
  label: value,
  help: EFFECT_HELP[value],
}));
export const KEY_POLICY_CHOICES = valueChoices(KEY_POLICY_HELP);
export const RECONCILE_CHOICES = valueChoices(RECONCILE_HELP);
export const APPROVAL_CHOICES: Choice<ApprovalPolicy>[] = (Object.keys(APPROVAL_WORDS) as ApprovalPolicy[]).map(
  (value) => ({ value, ...APPROVAL_WORDS[value] }),
);

export const TOOL_ERROR_CHOICES: Choice<ContractView["toolError"]>[] = TOOL_ERROR_MEANINGS.map((value) => ({
  value,
  label: value,
  help: TOOL_ERROR_HELP[value],
  isDefault: value === GATEWAY_DEFAULTS.toolError,
}));
export const MODE_CHOICES: Choice<ContractView["mode"]>[] = CONTRACT_MODES.map((value) => ({
  value,
  label: value,
  help: MODE_HELP[value],
  isDefault: value === GATEWAY_DEFAULTS.mode,
}));

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
