// Valid contracts for property tests of the contract form: what the schema accepts and stores, in the shapes a person
// can type back into the form (trimmed text, applied values without commas).
import fc from "fast-check";
import {
  CONTRACT_MODES,
  contractBodySchema,
  errorRuleSchema,
  TOOL_ERROR_MEANINGS,
  type ContractView,
} from "@/lib/ledger/contracts/contract-schema";
import { EFFECT_CLASSES, ERROR_RULE_MEANINGS, type ErrorRule } from "@/lib/retry-gate/types";

const DAY = 86_400_000;

/** A valid rule, as the schema stores it. */
export const errorRule: fc.Arbitrary<ErrorRule> = fc
  .record(
    {
      when: fc
        .record(
          {
            httpStatus: fc.oneof(
              fc.integer({ min: 100, max: 599 }),
              fc
                .tuple(fc.integer({ min: 100, max: 599 }), fc.integer({ min: 100, max: 599 }))
                .map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a])),
            ),
            kind: fc.stringMatching(/^[A-Za-z_]{1,20}$/),
            message: fc.stringMatching(/^[a-z ]{1,30}$/).filter((m) => m.trim() !== ""),
          },
          { requiredKeys: [] },
        )
        .filter((w) => Object.keys(w).length > 0),
      then: fc.constantFrom(...ERROR_RULE_MEANINGS),
      why: fc.stringMatching(/^[A-Za-z][A-Za-z ,.]{0,40}[a-z.]$/),
    },
    { requiredKeys: ["when", "then"] },
  )
  .map((rule) => errorRuleSchema.parse(rule));

const word = (max: number) => fc.stringMatching(new RegExp(`^[a-z][a-z0-9_.]{0,${max - 1}}$`));
const orNull = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

const lookup = fc.record(
  {
    method: fc.constant("lookup" as const),
    urlTemplate: fc.constantFrom(
      "https://api.example.com/v1/charges/{idempotencyKey}",
      "http://provider.internal/lookup?id={providerId}",
    ),
    timeoutMs: fc.integer({ min: 100, max: 60_000 }),
    authHeaderEnv: fc.constantFrom("OPLEDGER_SECRET_STRIPE", "OPLEDGER_SECRET_MAIL_2"),
    providerIdField: word(20),
    statusField: word(20),
    appliedValues: fc.array(word(12), { minLength: 1, maxLength: 5 }),
    auto: fc.constant(true),
  },
  { requiredKeys: ["method", "urlTemplate"] },
);

/** A stored contract as the console reads it, with the gateway's defaults filled in. */
export const contractView: fc.Arbitrary<ContractView> = fc
  .record({
    tool: fc.constantFrom("payments.charge", "stripe__refund"),
    version: fc.integer({ min: 1, max: 50 }),
    effect: fc.constantFrom(...EFFECT_CLASSES),
    idempotencyKey: fc.constantFrom("required" as const, "optional" as const, "unsupported" as const),
    reconcile: fc.oneof(fc.constant(null), fc.constant({ method: "manual" as const }), lookup),
    approval: fc.constantFrom("required" as const, "not_required" as const),
    maxAttempts: fc.integer({ min: 1, max: 100 }),
    backoff: fc
      .tuple(fc.integer({ min: 0, max: 3_600_000 }), fc.integer({ min: 0, max: DAY }))
      .map(([a, b]) => ({ baseMs: Math.min(a, b), maxMs: Math.max(a, b) })),
    keyRetentionMs: orNull(fc.integer({ min: 1000, max: 365 * DAY })),
    approvalTtlMs: orNull(fc.integer({ min: 1000, max: 30 * DAY })),
    unknownAlertMs: orNull(fc.integer({ min: 1000, max: 30 * DAY })),
    approvals: fc.integer({ min: 1, max: 10 }),
    dependency: orNull(word(30)),
    description: orNull(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.:\n]{0,60}[a-z.]$/)),
    timeoutMs: fc.integer({ min: 100, max: 600_000 }),
    keyFrom: fc.constantFrom("args", "refund:{order_id}", "{customer.id}-{amount}"),
    toolError: fc.constantFrom(...TOOL_ERROR_MEANINGS),
    mode: fc.constantFrom(...CONTRACT_MODES),
    errorRules: fc.array(errorRule, { maxLength: 3 }),
    traceArguments: fc.boolean(),
    author: fc.constant("alice@example.com"),
    createdAt: fc.constant("2026-01-01T10:00:00.000Z"),
  })
  .filter((c) => contractBodySchema.safeParse(rulesOf(c)).success);

/** The rules of a stored contract, as a body the schema accepts. */
export function rulesOf(view: ContractView) {
  const { tool: _tool, version: _version, author: _author, createdAt: _createdAt, ...rules } = view;
  return rules;
}
