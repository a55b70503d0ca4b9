// The contract body's error rules: what the schema accepts and refuses, and the starter sets it must accept.
import { describe, expect, it } from "vitest";
import { contractBodySchema } from "./contract-schema";
import { STARTER_RULE_SETS } from "./starter-rules";

const BODY = {
  effect: "IDEMPOTENT",
  idempotencyKey: "required",
  reconcile: null,
  approval: "not_required",
  maxAttempts: 3,
  backoff: { baseMs: 100, maxMs: 1000 },
};

function problems(errorRules: unknown): string[] {
  const parsed = contractBodySchema.safeParse({ ...BODY, errorRules });
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("errorRules in the contract body", () => {
  it.each(STARTER_RULE_SETS.map((set) => [set.id, set]))(
    "accepts the %s starter set, which cites its sources",
    (_, set) => {
      expect(problems(set.rules)).toEqual([]);
      expect(set.sources.every((s) => s.startsWith("https://"))).toBe(true);
    },
  );

  it("accepts a status, a range, a kind and a pattern, and null for none", () => {
    expect(
      problems([{ when: { httpStatus: [500, 504], kind: "ECONNRESET", message: "^busy" }, then: "unknown" }]),
    ).toEqual([]);
    expect(problems(null)).toEqual([]);
  });

  it("refuses a rule with no condition, a reversed range, an unknown meaning and an unknown field", () => {
    expect(problems([{ when: {}, then: "fatal" }])).toEqual([
      "errorRules.0.when: a rule needs at least one condition: a status, a kind or a message pattern",
    ]);
    expect(problems([{ when: { httpStatus: [504, 500] }, then: "fatal" }])).toEqual([
      "errorRules.0.when.httpStatus: the range must be [low, high]",
    ]);
    expect(problems([{ when: { httpStatus: 409 }, then: "retry" }])).toHaveLength(1);
    expect(problems([{ when: { httpStatus: 409, body: "x" }, then: "fatal" }])).toHaveLength(1);
  });

  it("refuses a pattern RE2 cannot match in linear time, or one beyond the length bound", () => {
    expect(problems([{ when: { message: "(a)\\1" }, then: "fatal" }])[0]).toMatch(
      /^errorRules\.0\.when\.message: not a pattern this matcher accepts/,
    );
    expect(problems([{ when: { message: "a".repeat(201) }, then: "fatal" }])).toEqual([
      "errorRules.0.when.message: at most 200 characters",
    ]);
  });
});
