// The contract form's typed text and the body it sends: a contract shown in the form and saved unchanged is the same
// contract, and the schema's problems come back in an operator's words under the field that caused them.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contractBodySchema } from "@/lib/ledger/contracts/contract-schema";
import { fieldErrors } from "@/lib/platform/http/request-body";
import { contractView, rulesOf } from "./contract-arbitraries.test-helper";
import {
  bodyOf,
  classifiedDraft,
  draftOf,
  fieldMessages,
  formErrors,
  humanizeFieldError,
  NEW_CONTRACT_DRAFT,
  type ContractDraft,
} from "./contract-draft";

/** What the server's schema says about the body the form sends, keyed by form field. */
function problems(draft: ContractDraft): Record<string, string[]> {
  const parsed = contractBodySchema.safeParse(bodyOf(draft, undefined));
  return parsed.success ? {} : formErrors(fieldErrors(parsed.error));
}

describe("a new contract", () => {
  it("starts valid and cautious: a person approves every retry, one approval, the gateway's defaults", () => {
    const body = contractBodySchema.parse(bodyOf(NEW_CONTRACT_DRAFT, undefined));
    expect(body).toMatchObject({
      effect: "NON_RETRYABLE",
      reconcile: { method: "manual" },
      maxAttempts: 3,
      backoff: { baseMs: 500, maxMs: 30_000 },
      keyRetentionMs: null,
      approvalTtlMs: null,
      approvals: 1,
      timeoutMs: 30_000,
      keyFrom: "args",
      toolError: "fatal",
      mode: "enforce",
      errorRules: [],
    });
    expect(body).not.toHaveProperty("expectedVersion");
  });

  it("from an upstream's tool takes its name, its description and the suggested class, or stays cautious", () => {
    const hints = { tool: "stripe__refund", description: "Refunds a charge.", why: "hints" };
    expect(classifiedDraft({ ...hints, suggestedEffect: "IDEMPOTENT" })).toEqual({
      ...NEW_CONTRACT_DRAFT,
      tool: "stripe__refund",
      description: "Refunds a charge.",
      effect: "IDEMPOTENT",
    });
    expect(classifiedDraft({ ...hints, suggestedEffect: null }).effect).toBe("NON_RETRYABLE");
  });
});

describe("bodyOf", () => {
  it("sends the version the editor started from, so a save against an older one is refused", () => {
    expect(bodyOf(NEW_CONTRACT_DRAFT, 4).expectedVersion).toBe(4);
  });

  it("drops the lookup's settings when the method changes, so no stale URL is saved", () => {
    const lookup: ContractDraft = {
      ...NEW_CONTRACT_DRAFT,
      reconcileMethod: "lookup",
      urlTemplate: " https://api.example.com/{idempotencyKey} ",
      appliedValues: "succeeded, , pending ",
      auto: true,
    };
    expect(bodyOf(lookup, undefined).reconcile).toEqual({
      method: "lookup",
      urlTemplate: "https://api.example.com/{idempotencyKey}",
      appliedValues: ["succeeded", "pending"],
      auto: true,
    });
    expect(bodyOf({ ...lookup, reconcileMethod: "manual" }, undefined).reconcile).toEqual({ method: "manual" });
    expect(bodyOf({ ...lookup, reconcileMethod: "none" }, undefined).reconcile).toBeNull();
  });

  it("sends an empty box as 'not given' and typed text as it is, for the schema to judge", () => {
    const body = bodyOf({ ...NEW_CONTRACT_DRAFT, approvals: " ", maxAttempts: "two", keyFrom: "", dependency: " " }, 1);
    expect(body).not.toHaveProperty("approvals");
    expect(body).not.toHaveProperty("keyFrom");
    expect(body.dependency).toBeNull();
    expect(body.maxAttempts).toBeNaN();
  });

  it("gives back the same rules for any stored contract shown in the form and saved unchanged", () => {
    fc.assert(
      fc.property(contractView, (view) => {
        const saved = contractBodySchema.parse(bodyOf(draftOf(view), view.version));
        expect(saved).toEqual({ ...contractBodySchema.parse(rulesOf(view)), expectedVersion: view.version });
      }),
    );
  });
});

describe("humanizeFieldError", () => {
  it.each([
    [{ maxAttempts: "0" }, "maxAttempts", "Must be at least 1."],
    [{ maxAttempts: "101" }, "maxAttempts", "Must be at most 100."],
    [{ maxAttempts: "1.5" }, "maxAttempts", "Must be a whole number."],
    [{ maxAttempts: "two" }, "maxAttempts", "Must be a number."],
    [{ maxAttempts: "" }, "maxAttempts", "Required: enter a whole number."],
    [{ description: "x".repeat(2001) }, "description", "At most 2000 characters."],
    [{ effect: "NOPE" }, "effect", "Choose one of the options."],
    [
      { reconcileMethod: "lookup", urlTemplate: "ftp://x" },
      "reconcile.urlTemplate",
      "Must be an http:// or https:// URL.",
    ],
    [
      { reconcileMethod: "lookup", urlTemplate: "", appliedValues: "a,".repeat(21) },
      "reconcile.appliedValues",
      "At most 20 values.",
    ],
    [{ dependency: "bad name!" }, "dependency", "Letters, digits and . _ : - only."],
  ] as [Partial<ContractDraft>, string, string][])(
    "says the schema's message for %j in an operator's words",
    (patch, field, words) => {
      expect(problems({ ...NEW_CONTRACT_DRAFT, ...patch })[field]).toContain(words);
    },
  );

  it("ends every message as a sentence and keeps the schema's own words", () => {
    expect(humanizeFieldError("maxMs must be at least baseMs")).toBe("MaxMs must be at least baseMs.");
    expect(humanizeFieldError("Give a reason.")).toBe("Give a reason.");
  });
});

describe("formErrors and fieldMessages", () => {
  it("keys the server's errors by form field", () => {
    expect(formErrors({ "body.backoff.maxMs": ["too small"], body: ["Bad."], tool: ["taken"] })).toEqual({
      "backoff.maxMs": ["Too small."],
      "": ["Bad."],
      tool: ["Taken."],
    });
    expect(formErrors(undefined)).toEqual({});
  });

  it("shows a field its own messages and its items', else its parent's", () => {
    const errors = { "reconcile.appliedValues.0": ["At most 200 characters."], backoff: ["Too slow."] };
    expect(fieldMessages(errors, { name: "reconcile.appliedValues" })).toEqual(["At most 200 characters."]);
    expect(fieldMessages(errors, { name: "backoff.baseMs", errorsAlsoUnder: "backoff" })).toEqual(["Too slow."]);
    expect(fieldMessages(errors, { name: "reconcile.timeoutMs" })).toBeUndefined();
    expect(fieldMessages({ timeoutMs: ["x"] }, { name: "reconcile.timeoutMs" })).toBeUndefined();
  });
});
