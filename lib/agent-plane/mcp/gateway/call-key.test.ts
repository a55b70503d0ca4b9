// The key a gateway call is planned under: the same call gives the same key, a different call a different one.
import { describe, expect, it } from "vitest";
import { callKey } from "./call-key";

describe("callKey", () => {
  it("keys by the canonical arguments within the run", () => {
    const a = callKey("args", { b: 1, a: "x" }, "run-1", undefined);
    expect(a).toEqual(callKey("args", { a: "x", b: 1 }, "run-1", undefined));
    expect(a).not.toEqual(callKey("args", { a: "x", b: 1 }, "run-2", undefined));
    expect(a).not.toEqual(callKey("args", { a: "x", b: 2 }, "run-1", undefined));
  });

  it("fills a template from the arguments, dotted paths included, the same in every run", () => {
    expect(callKey("refund:{order_id}", { order_id: "o-7", amount: 5 }, "run-1", undefined)).toEqual({
      key: "refund:o-7",
      byDefault: false,
    });
    expect(callKey("refund:{order.id}:{n}", { order: { id: "o-7" }, n: 2 }, "run-2", undefined)).toEqual({
      key: "refund:o-7:2",
      byDefault: false,
    });
  });

  it("names the arguments a template needs and the call lacks", () => {
    const made = callKey("refund:{order_id}:{customer}", { customer: { id: 1 } }, "run-1", undefined);
    expect(made).toEqual({ problem: expect.stringMatching(/"order_id", "customer"/) as unknown });
  });

  it("does not follow inherited properties", () => {
    expect(callKey("k:{constructor}", {}, "r", undefined)).toHaveProperty("problem");
  });

  it("takes the client's own key, and refuses one that is not a short string", () => {
    expect(callKey("args", { a: 1 }, "r", "my-key")).toEqual({ key: "my-key", byDefault: false });
    expect(callKey("args", { a: 1 }, "r", undefined)).toMatchObject({ byDefault: true });
    expect(callKey("args", { a: 1 }, "r", 42)).toHaveProperty("problem");
    expect(callKey("args", { a: 1 }, "r", "x".repeat(201))).toHaveProperty("problem");
  });

  it("hashes a long rendered template so it still fits", () => {
    const made = callKey("k:{v}", { v: "y".repeat(300) }, "r", undefined);
    expect(made).toEqual({ key: expect.stringMatching(/^mcp:[0-9a-f]{64}$/) as unknown, byDefault: false });
  });
});
