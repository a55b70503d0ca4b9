// The console's words for the ledger's refusals of a person's decision.
import { describe, expect, it } from "vitest";
import { decidedFirstByAnother, operationMovedOn, refusalText } from "./refusals";

describe("refusalText", () => {
  it.each([
    ["four_eyes", /another person must approve it: the four-eyes rule/],
    ["already_approved", /already approved this operation.*other people/],
    ["approval_expired", /expired before your decision arrived.*nothing was approved/],
    ["person_required", /Only a person with the operator role can approve/],
  ])("%s has the console's own sentence", (code, text) => {
    const shown = refusalText(code, "the ledger's message");
    expect(shown).toMatch(text);
    expect(shown).not.toContain("the ledger's message");
  });

  it("keeps the ledger's message for other codes", () => {
    expect(refusalText("not_rejectable", "Operation x is CONFIRMED; it can no longer be rejected.")).toBe(
      "Operation x is CONFIRMED; it can no longer be rejected.",
    );
  });
});

describe("operationMovedOn", () => {
  it.each([
    ["write_conflict", true],
    ["approval_expired", true],
    ["four_eyes", false],
    ["already_approved", false],
    ["invalid_input", false],
  ])("%s: %s", (code, moved) => {
    expect(operationMovedOn(code)).toBe(moved);
  });
});

describe("decidedFirstByAnother", () => {
  it.each([
    ["not_awaiting_approval", true],
    ["not_rejectable", true],
    ["not_unknown", true],
    ["write_conflict", true],
    ["four_eyes", false],
    ["approval_expired", false],
    ["invalid_body", false],
  ])("%s -> %s", (code, expected) => {
    expect(decidedFirstByAnother(code)).toBe(expected);
  });
});
