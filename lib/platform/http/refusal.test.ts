// The one reading of an error the three wrappers share: a refusal with its status, code and sentence, or null.
import { describe, expect, it } from "vitest";
import { ForbiddenError } from "@/lib/platform/auth/roles";
import { LedgerError } from "@/lib/ledger/errors";
import { IllegalTransitionError } from "@/lib/retry-gate/phases";
import { refusalOf } from "./refusal";
import { BodyError } from "./request-body";

describe("refusalOf", () => {
  it("keeps a ledger refusal's code, status, sentence and extras", () => {
    const decision = { action: "STOP" as const, reason: "the run's deadline passed" };
    const refusal = refusalOf(
      new LedgerError("budget_spent", "No retry.", { decision, operationId: "op-1", errors: { "": ["no"] } }),
    );
    expect(refusal).toMatchObject({ code: "budget_spent", message: "No retry.", decision, operationId: "op-1" });
    expect(refusal?.errors).toEqual({ "": ["no"] });
    expect(refusal?.status).toBe(new LedgerError("budget_spent", "x").status);
  });

  it("reads a bad body, a missing role and an illegal transition", () => {
    expect(refusalOf(new BodyError(413, "payload_too_large", "Too big."))).toEqual({
      status: 413,
      code: "payload_too_large",
      message: "Too big.",
    });
    expect(refusalOf(new ForbiddenError("Needs operator."))).toEqual({
      status: 403,
      code: "forbidden",
      message: "Needs operator.",
    });
    expect(refusalOf(new IllegalTransitionError("CONFIRMED", "DISPATCHED"))).toMatchObject({
      status: 409,
      code: "illegal_transition",
    });
  });

  it("answers null for an error nobody expected", () => {
    expect(refusalOf(new TypeError("x is undefined"))).toBeNull();
    expect(refusalOf("a string")).toBeNull();
  });
});
