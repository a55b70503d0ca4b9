// The contract form's state as typed text, and the body it sends: no rules here, the server's contractBodySchema judges
// it.
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { ContractBody, ContractView } from "@/lib/ledger/contracts/contract-schema";
import type { ClassifyDraft } from "@/lib/console/classify-draft";
import { GATEWAY_DEFAULTS } from "@/lib/ledger/contracts/contract-view";
import type { ApprovalPolicy, EffectClass, KeyPolicy } from "@/lib/retry-gate/types";
import type { ReconcileMethod } from "./contract-words";
import { ruleDraftOf, ruleOf, type ErrorRuleDraft } from "./error-rule-draft";

export interface ContractDraft {
  tool: string;
  effect: EffectClass;
  idempotencyKey: KeyPolicy;
  reconcileMethod: ReconcileMethod;
  urlTemplate: string;
  lookupTimeoutMs: string;
  authHeaderEnv: string;
  providerIdField: string;
  statusField: string;
  /** Comma-separated. */
  appliedValues: string;
  auto: boolean;
  approval: ApprovalPolicy;
  maxAttempts: string;
  backoffBaseMs: string;
  backoffMaxMs: string;
  keyRetentionMs: string;
  /** Empty: the default, 24 h. */
  approvalTtlMs: string;
  /** Empty: the default, 15 min. */
  unknownAlertMs: string;
  approvals: string;
  dependency: string;
  description: string;
  /** MCP gateway: how long the upstream may take to answer. Empty: the default. */
  upstreamTimeoutMs: string;
  /** "args" or a template such as "refund:{order_id}". Empty: the default. */
  keyFrom: string;
  toolError: ContractView["toolError"];
  mode: ContractView["mode"];
  /** In order: the first rule that matches decides. */
  errorRules: ErrorRuleDraft[];
  /** Spans may carry the call's argument and result values (docs/observability.md); kept as the version had it. */
  traceArguments: boolean;
}

/**
 * A new contract starts from the cautious choice: a person approves retries until someone says otherwise. The gateway
 * fields start at their defaults, shown as values, as an edit of a contract that never set them shows them.
 */
export const NEW_CONTRACT_DRAFT: ContractDraft = {
  tool: "",
  effect: "NON_RETRYABLE",
  idempotencyKey: "optional",
  reconcileMethod: "manual",
  urlTemplate: "",
  lookupTimeoutMs: "",
  authHeaderEnv: "",
  providerIdField: "",
  statusField: "",
  appliedValues: "",
  auto: false,
  approval: "not_required",
  maxAttempts: "3",
  backoffBaseMs: "500",
  backoffMaxMs: "30000",
  keyRetentionMs: "",
  approvalTtlMs: "",
  unknownAlertMs: "",
  approvals: "1",
  dependency: "",
  description: "",
  upstreamTimeoutMs: String(GATEWAY_DEFAULTS.timeoutMs),
  keyFrom: GATEWAY_DEFAULTS.keyFrom,
  toolError: GATEWAY_DEFAULTS.toolError,
  mode: GATEWAY_DEFAULTS.mode,
  errorRules: [],
  traceArguments: false,
};

/**
 * "Classify": a new contract for an upstream's tool, with its gateway name and description, and the class its hints
 * suggest preselected; without a suggestion the cautious class stays. A person still picks the class and saves.
 */
export function classifiedDraft(hints: ClassifyDraft): ContractDraft {
  return {
    ...NEW_CONTRACT_DRAFT,
    tool: hints.tool,
    description: hints.description,
    effect: hints.suggestedEffect ?? NEW_CONTRACT_DRAFT.effect,
  };
}

const text = (value: string | number | null | undefined): string =>
  value === null || value === undefined ? "" : String(value);

export function draftOf(c: ContractView): ContractDraft {
  const r = c.reconcile;
  return {
    tool: c.tool,
    effect: c.effect,
    idempotencyKey: c.idempotencyKey,
    reconcileMethod: r ? r.method : "none",
    urlTemplate: text(r?.urlTemplate),
    lookupTimeoutMs: text(r?.timeoutMs),
    authHeaderEnv: text(r?.authHeaderEnv),
    providerIdField: text(r?.providerIdField),
    statusField: text(r?.statusField),
    appliedValues: (r?.appliedValues ?? []).join(", "),
    auto: r?.auto ?? false,
    approval: c.approval,
    maxAttempts: String(c.maxAttempts),
    backoffBaseMs: String(c.backoff.baseMs),
    backoffMaxMs: String(c.backoff.maxMs),
    keyRetentionMs: text(c.keyRetentionMs),
    approvalTtlMs: text(c.approvalTtlMs),
    unknownAlertMs: text(c.unknownAlertMs),
    approvals: String(c.approvals),
    dependency: text(c.dependency),
    description: text(c.description),
    upstreamTimeoutMs: String(c.timeoutMs),
    keyFrom: c.keyFrom,
    toolError: c.toolError,
    mode: c.mode,
    errorRules: c.errorRules.map(ruleDraftOf),
    traceArguments: c.traceArguments,
  };
}

/** Typed text as a number for the schema to judge: empty is "not given", anything else is passed on (NaN included). */
function numberField(value: string): number | undefined {
  const trimmed = value.trim();
  return trimmed === "" ? undefined : Number(trimmed);
}

const optionalText = (value: string): string | undefined => (value.trim() === "" ? undefined : value.trim());

/**
 * What the form sends. Fields of other reconcile methods are dropped, so a switch from lookup to manual leaves no stale
 * URL behind.
 */
export function bodyOf(d: ContractDraft, expectedVersion: number | undefined): ContractBody {
  let reconcile: ContractBody["reconcile"];
  switch (d.reconcileMethod) {
    case "none":
      reconcile = null;
      break;
    case "manual":
      reconcile = { method: "manual" };
      break;
    case "lookup": {
      const applied = d.appliedValues
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
      reconcile = {
        method: "lookup",
        ...(optionalText(d.urlTemplate) !== undefined ? { urlTemplate: optionalText(d.urlTemplate) } : {}),
        ...(numberField(d.lookupTimeoutMs) !== undefined ? { timeoutMs: numberField(d.lookupTimeoutMs) } : {}),
        ...(optionalText(d.authHeaderEnv) !== undefined ? { authHeaderEnv: optionalText(d.authHeaderEnv) } : {}),
        ...(optionalText(d.providerIdField) !== undefined ? { providerIdField: optionalText(d.providerIdField) } : {}),
        ...(optionalText(d.statusField) !== undefined ? { statusField: optionalText(d.statusField) } : {}),
        ...(applied.length > 0 ? { appliedValues: applied } : {}),
        ...(d.auto ? { auto: true } : {}),
      };
      break;
    }
    default:
      return assertNever(d.reconcileMethod, "reconcile method");
  }
  // The casts hand possibly-invalid text to the server, whose schema is the one judge of it.
  return {
    effect: d.effect,
    idempotencyKey: d.idempotencyKey,
    reconcile,
    approval: d.approval,
    maxAttempts: numberField(d.maxAttempts) as number,
    backoff: { baseMs: numberField(d.backoffBaseMs) as number, maxMs: numberField(d.backoffMaxMs) as number },
    keyRetentionMs: numberField(d.keyRetentionMs) ?? null,
    approvalTtlMs: numberField(d.approvalTtlMs) ?? null,
    unknownAlertMs: numberField(d.unknownAlertMs) ?? null,
    // Empty is "not given": the schema's default, one approval.
    ...(numberField(d.approvals) !== undefined ? { approvals: numberField(d.approvals) } : {}),
    dependency: optionalText(d.dependency) ?? null,
    description: optionalText(d.description) ?? null,
    // Empty is "not given": the default. A default sent is not stored either, so the version's hash is the same.
    ...(numberField(d.upstreamTimeoutMs) !== undefined ? { timeoutMs: numberField(d.upstreamTimeoutMs) } : {}),
    ...(optionalText(d.keyFrom) !== undefined ? { keyFrom: optionalText(d.keyFrom) } : {}),
    toolError: d.toolError,
    mode: d.mode,
    errorRules: d.errorRules.map(ruleOf),
    traceArguments: d.traceArguments,
    ...(expectedVersion === undefined ? {} : { expectedVersion }),
  };
}

/** The schema's messages, kept, with zod's generic ones said the way an operator would. */
export function humanizeFieldError(message: string): string {
  let m: RegExpExecArray | null;
  if ((m = /^Too small: expected number to be >=(-?\d+)$/.exec(message))) return `Must be at least ${m[1]}.`;
  if ((m = /^Too big: expected number to be <=(-?\d+)$/.exec(message))) return `Must be at most ${m[1]}.`;
  if ((m = /^Too big: expected string to have <=(\d+) characters$/.exec(message))) return `At most ${m[1]} characters.`;
  if ((m = /^Too big: expected array to have <=(\d+) items$/.exec(message))) return `At most ${m[1]} values.`;
  if (/expected (number|int), received undefined$/.test(message)) return "Required: enter a whole number.";
  if (/expected (number|int), received (NaN|string)$/.test(message)) return "Must be a number.";
  if (/expected int, received number$/.test(message)) return "Must be a whole number.";
  if (message === "Invalid URL") return "Must be an http:// or https:// URL.";
  if (message.startsWith("Invalid option: expected one of")) return "Choose one of the options.";
  const sentence = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** The server's error map keyed by form field: "body.backoff.maxMs" becomes "backoff.maxMs"; "tool" stays. */
export function formErrors(errors: Record<string, string[]> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, messages] of Object.entries(errors ?? {})) {
    const field = key === "body" ? "" : key.startsWith("body.") ? key.slice("body.".length) : key;
    (out[field] ??= []).push(...messages.map(humanizeFieldError));
  }
  return out;
}

/**
 * The messages a field shows: its own and its items' ("reconcile.appliedValues.0" belongs to the applied values), else
 * those of the parent it shares them with ("backoff" when base and max are wrong together).
 */
export function fieldMessages(
  errors: Record<string, string[]>,
  field: { name: string; errorsAlsoUnder?: string },
): string[] | undefined {
  const own = Object.entries(errors)
    .filter(([key]) => key === field.name || key.startsWith(`${field.name}.`))
    .flatMap(([, messages]) => messages);
  if (own.length > 0) return own;
  return field.errorsAlsoUnder ? errors[field.errorsAlsoUnder] : undefined;
}
