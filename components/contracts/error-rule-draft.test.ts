// The form's error rules as typed text: a rule shown in the form and saved unchanged is the same rule.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { errorRuleSchema } from "@/lib/ledger/contracts/contract-schema";
import type { ErrorRule } from "@/lib/retry-gate/types";
import { errorRule } from "./contract-arbitraries.test-helper";
import { NEW_RULE_DRAFT, ruleDraftOf, ruleOf } from "./error-rule-draft";

describe("ruleDraftOf and ruleOf", () => {
  it("shows a status range as low-high and reads it back", () => {
    const rule: ErrorRule = { when: { httpStatus: [500, 599] }, then: "transient" };
    expect(ruleDraftOf(rule)).toEqual({ status: "500-599", kind: "", message: "", then: "transient", why: "" });
    expect(ruleOf({ ...NEW_RULE_DRAFT, status: " 500 - 599 " })).toEqual(rule);
  });

  it("leaves out what is empty, trims the kind and the reason, and keeps a pattern's spaces", () => {
    expect(ruleOf({ status: "409", kind: " conflict ", message: " already exists", then: "fatal", why: "  " })).toEqual(
      {
        when: { httpStatus: 409, kind: "conflict", message: " already exists" },
        then: "fatal",
      },
    );
  });

  it("hands a status that is not a number on as NaN, for the schema to refuse", () => {
    const rule = ruleOf({ ...NEW_RULE_DRAFT, status: "5xx" });
    expect(rule.when.httpStatus).toBeNaN();
    expect(errorRuleSchema.safeParse(rule).success).toBe(false);
  });

  it("sends a new rule with no condition, which the schema refuses", () => {
    expect(errorRuleSchema.safeParse(ruleOf(NEW_RULE_DRAFT)).success).toBe(false);
  });

  it("gives back the same rule for any valid rule shown in the form and saved unchanged", () => {
    fc.assert(
      fc.property(errorRule, (rule) => {
        expect(errorRuleSchema.parse(ruleOf(ruleDraftOf(rule)))).toEqual(rule);
      }),
    );
  });
});
