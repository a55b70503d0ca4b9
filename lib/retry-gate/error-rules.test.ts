// A contract's error rules: first match wins, no match leaves the global table, and no rule turns a possibly applied
// NON_RETRYABLE effect into a retry; then Stripe's documented answers and the matcher's bounds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyError, outcomeOfReport } from "./classify-error";
import { decideAfterFailure } from "./decide";
import {
  RULE_PATTERN_MAX,
  compileRulePattern,
  firstMatchingRule,
  judgeReport,
  ruleMatches,
  type ReportContext,
  type ReportResult,
} from "./error-rules";
import { gateInput, seededRandom } from "./gate-arbitraries.test-helper";
import {
  EFFECT_CLASSES,
  ERROR_KINDS,
  ERROR_RULE_MEANINGS,
  TOOL_ERROR_MEANINGS,
  letsAttemptGo,
  type ErrorRule,
  type ReportedError,
} from "./types";

const arbStatus = fc.integer({ min: 400, max: 599 });
const WORDS = ["declined", "in progress", "rate limit", "idempotency", "quota", "timeout"];

const arbReported: fc.Arbitrary<ReportedError> = fc.record(
  {
    httpStatus: arbStatus,
    kind: fc.constantFrom(...ERROR_KINDS, "ECONNRESET", "card_error"),
    message: fc.subarray(WORDS).map((w) => w.join(" ")),
    retryAfterMs: fc.integer({ min: 0, max: 60_000 }),
  },
  { requiredKeys: [] },
);

const arbRule: fc.Arbitrary<ErrorRule> = fc.record(
  {
    when: fc.record(
      {
        httpStatus: fc.oneof(
          arbStatus,
          fc.tuple(arbStatus, arbStatus).map(([a, b]): [number, number] => [Math.min(a, b), Math.max(a, b)]),
        ),
        kind: fc.constantFrom(...ERROR_KINDS, "ECONNRESET"),
        message: fc.constantFrom(...WORDS, "^in", "limit|quota", "[0-9]+"),
      },
      { requiredKeys: [] },
    ),
    then: fc.constantFrom(...ERROR_RULE_MEANINGS),
    why: fc.constantFrom("the provider says so", ""),
  },
  { requiredKeys: ["when", "then"] },
);

const arbContext: fc.Arbitrary<ReportContext> = fc.record({
  tool: fc.constant("payments.charge"),
  effect: fc.constantFrom(...EFFECT_CLASSES),
  toolError: fc.constantFrom(...TOOL_ERROR_MEANINGS),
  errorRules: fc.array(arbRule, { maxLength: 6 }),
});

const arbResult = fc.constantFrom<ReportResult>("confirmed", "failed", "unknown");

function ruleNumber(label: string | undefined): number | null {
  const match = /^rule (\d+) of /.exec(label ?? "");
  return match ? Number(match[1]) : null;
}

describe("error rules, for every list of rules and every report", () => {
  it("the first rule that matches decides, and its number is in the reason", () => {
    fc.assert(
      fc.property(arbContext, arbReported, (ctx, reported) => {
        const match = firstMatchingRule(ctx.errorRules, reported);
        const judged = judgeReport("failed", reported, ctx);
        const globalKind = classifyError(reported).kind;
        const expected = ctx.errorRules.findIndex((r) => ruleMatches(r, reported, globalKind));
        expect(match?.number ?? 0).toBe(expected + 1);
        expect(ruleNumber(judged.error?.rule)).toBe(expected < 0 ? null : expected + 1);
      }),
    );
  });

  it("with no rule matching, the global table and toolError decide, as before rules existed", () => {
    fc.assert(
      fc.property(arbContext, arbResult, fc.option(arbReported, { nil: undefined }), (ctx, result, reported) => {
        const none = { ...ctx, errorRules: ctx.errorRules.filter((r) => !firstMatchingRule([r], reported ?? {})) };
        const base = reported ? classifyError(reported, ctx.toolError) : result === "failed" ? classifyError({}) : null;
        expect(judgeReport(result, reported, none)).toEqual({
          result: outcomeOfReport(result, base, ctx.toolError),
          error: base,
        });
      }),
    );
  });

  it("rules read failures only: a confirmed or unknown report keeps its result", () => {
    fc.assert(
      fc.property(arbContext, fc.constantFrom<ReportResult>("confirmed", "unknown"), arbReported, (ctx, r, e) => {
        expect(judgeReport(r, e, ctx).result).toBe(r);
      }),
    );
  });

  it("a NON_RETRYABLE failure the table calls unknown stays unknown, and no NON_RETRYABLE failure is retried", () => {
    fc.assert(
      fc.property(arbContext, arbReported, fc.integer({ min: 1, max: 4 }), fc.nat(), (ctx, reported, attempt, seed) => {
        const nonRetryable = { ...ctx, effect: "NON_RETRYABLE" as const };
        const judged = judgeReport("failed", reported, nonRetryable);
        const byTable = outcomeOfReport("failed", classifyError(reported, ctx.toolError), ctx.toolError);
        if (byTable === "unknown") expect(judged.result).toBe("unknown");
        if (judged.result === "failed" && judged.error) {
          const input = gateInput("NON_RETRYABLE", { phase: "DISPATCHED", attempt }, { maxAttempts: 5 });
          const step = decideAfterFailure(input, judged.error, seededRandom(seed));
          expect(letsAttemptGo(step.decision.action)).toBe(false);
        }
      }),
    );
  });
});

/** Stripe's documented answers (https://docs.stripe.com/error-codes, https://docs.stripe.com/api/idempotent_requests). */
const STRIPE_RULES: ErrorRule[] = [
  {
    when: { httpStatus: 409, message: "idempotency_key_in_use|currently being processed" },
    then: "transient",
    why: "409 means the first request with this key is still in progress",
  },
  { when: { httpStatus: 402 }, then: "fatal", why: "402 means the card was declined" },
  { when: { httpStatus: 429 }, then: "rate_limited" },
];
const STRIPE: ReportContext = {
  tool: "payments.charge",
  effect: "IDEMPOTENT",
  toolError: "fatal",
  errorRules: STRIPE_RULES,
};

describe("error rules on Stripe's documented answers", () => {
  it("409 in progress is retried with the same key, and the reason names rule 1", () => {
    const judged = judgeReport(
      "failed",
      { httpStatus: 409, message: '{"error":{"code":"idempotency_key_in_use","type":"idempotency_error"}}' },
      STRIPE,
    );
    expect(judged).toMatchObject({ result: "failed", error: { kind: "conflict", errorClass: "transient" } });
    const error = judged.error ?? classifyError({});
    const step = decideAfterFailure(gateInput("IDEMPOTENT", { phase: "DISPATCHED", attempt: 1 }), error, () => 0);
    expect(step.decision.action).toBe("RETRY_SAME_KEY");
    expect(step.decision.reason).toContain(
      "rule 1 of payments.charge: 409 means the first request with this key is still in progress",
    );
  });

  it("another 409 (not in progress) falls to the global table: fatal conflict", () => {
    expect(judgeReport("failed", { httpStatus: 409, message: "other" }, STRIPE).error).toEqual({
      kind: "conflict",
      errorClass: "fatal",
      httpStatus: 409,
      message: "other",
    });
  });

  it("402 card declined fails without a retry, naming rule 2", () => {
    const judged = judgeReport("failed", { httpStatus: 402, message: '{"error":{"type":"card_error"}}' }, STRIPE);
    const error = judged.error ?? classifyError({});
    const step = decideAfterFailure(gateInput("IDEMPOTENT", { phase: "DISPATCHED", attempt: 1 }), error, () => 0);
    expect(step.phase).toBe("FAILED");
    expect(step.decision.reason).toContain("rule 2 of payments.charge: 402 means the card was declined");
  });

  it("a rule without a why is described by its conditions", () => {
    expect(judgeReport("failed", { httpStatus: 429, retryAfterMs: 7000 }, STRIPE).error).toEqual({
      kind: "rate_limited",
      errorClass: "transient",
      httpStatus: 429,
      retryAfterMs: 7000,
      rule: "rule 3 of payments.charge: status 429 is a rate limit",
    });
  });

  it("an 'unknown' rule makes the failure an unknown outcome", () => {
    const ctx = { ...STRIPE, errorRules: [{ when: { kind: "ECONNRESET" }, then: "unknown" } satisfies ErrorRule] };
    expect(judgeReport("failed", { kind: "econnreset" }, ctx).result).toBe("unknown");
    expect(judgeReport("failed", { kind: "connection-reset" }, ctx).result).toBe("failed");
  });

  it("a tool error text decides for an MCP tool, but not against a possibly applied NON_RETRYABLE effect", () => {
    const rules: ErrorRule[] = [{ when: { kind: "tool_error", message: "^rate limited" }, then: "transient" }];
    const mcp: ReportContext = { tool: "crm__update", effect: "IDEMPOTENT", toolError: "unknown", errorRules: rules };
    const reported = { kind: "tool_error", message: "Rate limited, try later" };
    expect(judgeReport("failed", reported, mcp)).toMatchObject({
      result: "failed",
      error: { errorClass: "transient" },
    });
    const judged = judgeReport("failed", reported, { ...mcp, effect: "NON_RETRYABLE" });
    expect(judged.result).toBe("unknown");
    expect(judged.error?.rule).toContain("not applied");
  });

  it("a range matches its ends", () => {
    const rule: ErrorRule = { when: { httpStatus: [500, 503] }, then: "fatal" };
    expect([499, 500, 503, 504].map((s) => ruleMatches(rule, { httpStatus: s }, ""))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
});

describe("rule patterns", () => {
  it("are refused beyond the length bound or outside RE2's syntax, and such a pattern matches nothing", () => {
    expect(compileRulePattern("a".repeat(RULE_PATTERN_MAX + 1))).toMatch(/at most/);
    expect(compileRulePattern("(a)\\1")).toMatch(/backreferences/);
    expect(ruleMatches({ when: { message: "(?=x)" }, then: "fatal" }, { message: "x" }, "")).toBe(false);
  });

  it("match in linear time: a catastrophic pattern for a backtracking engine finishes at once", () => {
    const start = performance.now();
    const rule: ErrorRule = { when: { message: "^(a+)+$" }, then: "fatal" };
    expect(ruleMatches(rule, { message: `${"a".repeat(4000)}!` }, "")).toBe(false);
    expect(performance.now() - start).toBeLessThan(2000);
  });

  it("are case-insensitive and search anywhere in the message", () => {
    expect(
      ruleMatches({ when: { message: "declined" }, then: "fatal" }, { message: "Your card was DECLINED." }, ""),
    ).toBe(true);
  });
});
