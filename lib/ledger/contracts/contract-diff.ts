// What changed between two versions of a tool contract, field by field, in the order the contract form shows them.
import { ruleText } from "@/lib/retry-gate/error-rules";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { ContractView } from "./contract-schema";

export type ContractFieldValue = string | number | boolean | readonly string[] | null;

export interface ContractField {
  /** Dotted path in the contract body, the same key the form's field errors use. */
  path: string;
  label: string;
}

/** Every rule of a contract, as the form and the diff name it. */
export const CONTRACT_FIELDS = [
  { path: "effect", label: "Side-effect class" },
  { path: "idempotencyKey", label: "Idempotency key" },
  { path: "reconcile.method", label: "Reconcile method" },
  { path: "reconcile.urlTemplate", label: "Lookup URL template" },
  { path: "reconcile.timeoutMs", label: "Lookup timeout (ms)" },
  { path: "reconcile.authHeaderEnv", label: "Lookup auth header variable" },
  { path: "reconcile.providerIdField", label: "Provider id field" },
  { path: "reconcile.statusField", label: "Status field" },
  { path: "reconcile.appliedValues", label: "Values that mean applied" },
  { path: "reconcile.auto", label: "Automatic lookup" },
  { path: "approval", label: "Approval" },
  { path: "maxAttempts", label: "Max attempts" },
  { path: "backoff.baseMs", label: "Backoff base (ms)" },
  { path: "backoff.maxMs", label: "Backoff max (ms)" },
  { path: "keyRetentionMs", label: "Key retention (ms)" },
  { path: "dependency", label: "Dependency" },
  { path: "description", label: "Description" },
  { path: "approvalTtlMs", label: "Approval expires after (ms)" },
  { path: "unknownAlertMs", label: "Alert on UNKNOWN after (ms)" },
  { path: "approvals", label: "Approvals needed" },
  { path: "timeoutMs", label: "Upstream timeout (ms)" },
  { path: "keyFrom", label: "Idempotency key from" },
  { path: "toolError", label: "A tool error means" },
  { path: "errorRules", label: "Error rules" },
  { path: "mode", label: "Mode" },
  { path: "traceArguments", label: "Arguments in traces" },
] as const satisfies readonly ContractField[];

export type ContractFieldPath = (typeof CONTRACT_FIELDS)[number]["path"];

/** The value of one field; a field a contract does not set (no reconcile method, no lookup URL) is null. */
export function contractFieldValue(c: ContractView, path: ContractFieldPath): ContractFieldValue {
  switch (path) {
    case "effect":
      return c.effect;
    case "idempotencyKey":
      return c.idempotencyKey;
    case "reconcile.method":
      return c.reconcile?.method ?? "none";
    case "reconcile.urlTemplate":
      return c.reconcile?.urlTemplate ?? null;
    case "reconcile.timeoutMs":
      return c.reconcile?.timeoutMs ?? null;
    case "reconcile.authHeaderEnv":
      return c.reconcile?.authHeaderEnv ?? null;
    case "reconcile.providerIdField":
      return c.reconcile?.providerIdField ?? null;
    case "reconcile.statusField":
      return c.reconcile?.statusField ?? null;
    case "reconcile.appliedValues":
      return c.reconcile?.appliedValues ?? null;
    case "reconcile.auto":
      return c.reconcile?.auto ?? null;
    case "approval":
      return c.approval;
    case "maxAttempts":
      return c.maxAttempts;
    case "backoff.baseMs":
      return c.backoff.baseMs;
    case "backoff.maxMs":
      return c.backoff.maxMs;
    case "keyRetentionMs":
      return c.keyRetentionMs;
    case "dependency":
      return c.dependency;
    case "description":
      return c.description;
    case "approvalTtlMs":
      return c.approvalTtlMs;
    case "unknownAlertMs":
      return c.unknownAlertMs ?? null;
    case "approvals":
      return c.approvals;
    case "timeoutMs":
      return c.timeoutMs;
    case "keyFrom":
      return c.keyFrom;
    case "toolError":
      return c.toolError;
    case "errorRules":
      return c.errorRules.map((rule, i) => `${i + 1}. ${ruleText(rule)}`);
    case "mode":
      return c.mode;
    case "traceArguments":
      return c.traceArguments;
    default:
      return assertNever(path, "contract field");
  }
}

export interface ContractFieldChange {
  path: ContractFieldPath;
  label: string;
  before: ContractFieldValue;
  after: ContractFieldValue;
}

function sameValue(a: ContractFieldValue, b: ContractFieldValue): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}

/** The fields whose value differs from `before` to `after` (either order of versions works). */
export function diffContracts(before: ContractView, after: ContractView): ContractFieldChange[] {
  return CONTRACT_FIELDS.flatMap((field) => {
    const a = contractFieldValue(before, field.path);
    const b = contractFieldValue(after, field.path);
    return sameValue(a, b) ? [] : [{ path: field.path, label: field.label, before: a, after: b }];
  });
}

/** A value as the console prints it: "—" for not set, lists comma-separated, booleans as yes/no. */
export function formatContractValue(value: ContractFieldValue): string {
  if (value === null) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return value === "" ? "—" : value;
  return value.length === 0 ? "—" : value.join(", ");
}
