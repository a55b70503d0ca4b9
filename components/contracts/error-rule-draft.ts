// The contract form's error rules as typed text, and the rules they stand for: the server's schema judges them.
import type { ErrorRule, ErrorRuleMeaning } from "@/lib/retry-gate/types";

export interface ErrorRuleDraft {
  /** "409", or a range "500-599"; empty: any status. */
  status: string;
  kind: string;
  message: string;
  then: ErrorRuleMeaning;
  why: string;
}

export const NEW_RULE_DRAFT: ErrorRuleDraft = { status: "", kind: "", message: "", then: "transient", why: "" };

export function ruleDraftOf(rule: ErrorRule): ErrorRuleDraft {
  const { httpStatus, kind, message } = rule.when;
  return {
    status: httpStatus === undefined ? "" : typeof httpStatus === "number" ? String(httpStatus) : httpStatus.join("-"),
    kind: kind ?? "",
    message: message ?? "",
    then: rule.then,
    why: rule.why ?? "",
  };
}

/** "409" as a status, "500-599" as a range; anything else is handed on as NaN for the schema to refuse. */
function statusOf(text: string): ErrorRule["when"]["httpStatus"] {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const range = /^(\d+)\s*-\s*(\d+)$/.exec(trimmed);
  if (range) return [Number(range[1]), Number(range[2])];
  return /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

export function ruleOf(d: ErrorRuleDraft): ErrorRule {
  const httpStatus = statusOf(d.status);
  const kind = d.kind.trim();
  const why = d.why.trim();
  return {
    when: {
      ...(httpStatus !== undefined ? { httpStatus } : {}),
      ...(kind !== "" ? { kind } : {}),
      // A pattern is sent as typed: its spaces may be part of it.
      ...(d.message !== "" ? { message: d.message } : {}),
    },
    then: d.then,
    ...(why !== "" ? { why } : {}),
  };
}
