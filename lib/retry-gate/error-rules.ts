// A contract's error rules: an ordered list read before the global table (classify-error.ts); the first rule whose
// conditions all hold says what a failed attempt's error means for this tool (docs/error-rules.md).
import { RE2JS } from "re2js";
import { classifyError, outcomeOfReport } from "./classify-error";
import { assertNever } from "./exhaustive";
import {
  type ClassifiedError,
  type EffectClass,
  type ErrorRule,
  type ErrorRuleMeaning,
  type ReportedError,
  type ToolErrorMeaning,
} from "./types";

/** The longest pattern a rule may hold; RE2 matches in time linear in the message whatever the pattern. */
export const RULE_PATTERN_MAX = 200;
/** How much of a message the patterns read: a provider's body can be large, the sentence that matters is early. */
export const RULE_MESSAGE_MAX = 4096;
export const ERROR_RULES_MAX = 32;

/**
 * The pattern compiled by RE2 (linear time, no backreferences or lookarounds), case-insensitive; a message to fix
 * when it cannot be (too long, or syntax RE2 does not accept).
 */
export function compileRulePattern(pattern: string): RE2JS | string {
  if (pattern.length > RULE_PATTERN_MAX) return `at most ${RULE_PATTERN_MAX} characters`;
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (e) {
    return `not a pattern this matcher accepts (RE2 syntax: no backreferences or lookarounds): ${(e as Error).message}`;
  }
}

const compiled = new Map<string, RE2JS | string>();

function patternOf(pattern: string): RE2JS | string {
  let p = compiled.get(pattern);
  if (p === undefined) {
    p = compileRulePattern(pattern);
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(pattern, p);
  }
  return p;
}

function normalisedKind(kind: string): string {
  return kind
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

/** Every condition the rule names holds (a rule names at least one; one naming none matches nothing). */
export function ruleMatches(rule: ErrorRule, reported: ReportedError, globalKind: string): boolean {
  const { httpStatus, kind, message } = rule.when;
  if (httpStatus === undefined && kind === undefined && message === undefined) return false;
  if (httpStatus !== undefined) {
    const status = reported.httpStatus;
    if (typeof status !== "number") return false;
    const [lo, hi] = typeof httpStatus === "number" ? [httpStatus, httpStatus] : httpStatus;
    if (status < lo || status > hi) return false;
  }
  if (kind !== undefined) {
    const wanted = normalisedKind(kind);
    const raw = typeof reported.kind === "string" ? normalisedKind(reported.kind) : undefined;
    if (wanted !== raw && wanted !== globalKind) return false;
  }
  if (message !== undefined) {
    const pattern = patternOf(message);
    if (typeof pattern === "string" || typeof reported.message !== "string") return false;
    if (!pattern.test(reported.message.slice(0, RULE_MESSAGE_MAX))) return false;
  }
  return true;
}

/** The first rule that matches, as its number (from 1) and the rule; null when none does. */
export function firstMatchingRule(
  rules: readonly ErrorRule[],
  reported: ReportedError,
): { number: number; rule: ErrorRule } | null {
  const globalKind = classifyError(reported).kind;
  const index = rules.findIndex((rule) => ruleMatches(rule, reported, globalKind));
  const rule = index < 0 ? undefined : rules[index];
  return rule === undefined ? null : { number: index + 1, rule };
}

function conditions(rule: ErrorRule): string {
  const { httpStatus, kind, message } = rule.when;
  const parts: string[] = [];
  if (httpStatus !== undefined) {
    parts.push(typeof httpStatus === "number" ? `status ${httpStatus}` : `status ${httpStatus[0]}-${httpStatus[1]}`);
  }
  if (kind !== undefined) parts.push(`kind ${kind}`);
  if (message !== undefined) parts.push(`a message matching /${message}/`);
  return parts.join(" with ");
}

const MEANING_WORDS: Record<ErrorRuleMeaning, string> = {
  transient: "is transient",
  fatal: "is fatal",
  unknown: "means the effect may have happened",
  rate_limited: "is a rate limit",
};

/** A rule in one line, as the contract page and its diff show it: "status 409 with kind conflict -> transient (why)". */
export function ruleText(rule: ErrorRule): string {
  const why = rule.why?.trim();
  return `${conditions(rule)} -> ${rule.then}${why ? ` (${why})` : ""}`;
}

/** "rule 2 of payments.charge: 409 means the first request is still in progress" (its `why`, or its conditions). */
export function ruleLabel(tool: string, number: number, rule: ErrorRule): string {
  const why = rule.why?.trim();
  return `rule ${number} of ${tool}: ${why ? why : `${conditions(rule)} ${MEANING_WORDS[rule.then]}`}`;
}

function classifiedBy(base: ClassifiedError, meaning: ErrorRuleMeaning, label: string): ClassifiedError {
  const ruled = { ...base, rule: label };
  switch (meaning) {
    case "transient":
      return { ...ruled, errorClass: "transient" };
    case "fatal":
    case "unknown":
      // "unknown" is another outcome rather than a class (judgeReport); as a class it stops like fatal.
      return { ...ruled, errorClass: "fatal" };
    case "rate_limited":
      return { ...ruled, kind: "rate_limited", errorClass: "transient" };
    default:
      return assertNever(meaning, "error rule meaning");
  }
}

export type ReportResult = "confirmed" | "failed" | "unknown";

export interface ReportContext {
  tool: string;
  effect: EffectClass;
  toolError: ToolErrorMeaning;
  errorRules: readonly ErrorRule[];
}

export interface JudgedReport {
  result: ReportResult;
  error: ClassifiedError | null;
}

/**
 * What a worker's report means under the contract: the error classified by the first matching rule, else by the
 * global table and `toolError`. Rules read failures only: a report of "unknown" stays unknown, and for a NON_RETRYABLE
 * tool a failure the global table calls unknown (a tool error under `toolError: "unknown"`) stays unknown whatever a
 * rule says, so no rule can turn a possibly applied NON_RETRYABLE effect into a retry.
 */
export function judgeReport(
  result: ReportResult,
  reported: ReportedError | undefined,
  ctx: ReportContext,
): JudgedReport {
  const base = reported ? classifyError(reported, ctx.toolError) : result === "failed" ? classifyError({}) : null;
  const byTable = outcomeOfReport(result, base, ctx.toolError);
  if (result !== "failed" || base === null) return { result: byTable, error: base };
  const match = firstMatchingRule(ctx.errorRules, reported ?? {});
  if (match === null) return { result: byTable, error: base };
  const label = ruleLabel(ctx.tool, match.number, match.rule);
  if (byTable === "unknown" && ctx.effect === "NON_RETRYABLE" && match.rule.then !== "unknown") {
    return { result: "unknown", error: { ...base, rule: `${label} (not applied: a NON_RETRYABLE effect may exist)` } };
  }
  const error = classifiedBy(base, match.rule.then, label);
  return { result: match.rule.then === "unknown" ? "unknown" : "failed", error };
}
