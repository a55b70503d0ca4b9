// The tool contract as agents and operators write it: one zod schema shared by the API and the console form.
import { z } from "zod";
import { ERROR_RULES_MAX, compileRulePattern } from "@/lib/retry-gate/error-rules";
import { EFFECT_CLASSES, ERROR_RULE_MEANINGS, TOOL_ERROR_MEANINGS, type ErrorRule } from "@/lib/retry-gate/types";

export { TOOL_ERROR_MEANINGS };

/** Letters, digits and `. _ : -`; the MCP gateway's tools are named `<upstream>__<tool>`. */
export const TOOL_NAME = /^[a-z0-9][a-z0-9_.:-]{0,127}$/i;
const DEPENDENCY_NAME = /^[a-z0-9][a-z0-9._:-]{0,63}$/i;
const DAY_MS = 86_400_000;
/** Literal text with `{argument}` placeholders (an argument name, or a dotted path into an object argument). */
const KEY_TEMPLATE = /^(?:[^{}]*\{[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\})+[^{}]*$/;
export const CONTRACT_MODES = ["enforce", "observe"] as const;

export const reconcileSchema = z
  .object({
    method: z.enum(["lookup", "manual"]),
    /** For "lookup": an HTTP GET template; {idempotencyKey} and {providerId} are filled in. */
    urlTemplate: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    timeoutMs: z.int().min(100).max(60_000).optional(),
    /**
     * Name of an OPLEDGER_SECRET_* environment variable holding the Authorization header value; the secret itself is
     * never stored, and no other variable (NEXTAUTH_SECRET, DATABASE_URL, ...) can be sent anywhere
     * (docs/authority.md#secrets-and-outbound-requests).
     */
    authHeaderEnv: z
      .string()
      .regex(
        /^OPLEDGER_SECRET_[A-Z0-9_]+$/,
        "must name an OPLEDGER_SECRET_* environment variable: only those may be sent to a provider",
      )
      .optional(),
    /** Response field that holds the provider's id, and the one that says the effect happened. */
    providerIdField: z.string().max(200).optional(),
    statusField: z.string().max(200).optional(),
    appliedValues: z.array(z.string().max(200)).max(20).optional(),
    /** Let the recovery sweep run the lookup by itself for REPLAYABLE operations. */
    auto: z.boolean().optional(),
  })
  .strict()
  .refine((r) => r.method !== "lookup" || r.urlTemplate !== undefined, {
    message: "a lookup needs a urlTemplate",
    path: ["urlTemplate"],
  });

const httpStatus = z.int().min(100).max(599);

/** One error rule (lib/retry-gate/error-rules.ts): at least one condition, a pattern RE2 accepts within the bound. */
export const errorRuleSchema = z
  .object({
    when: z
      .object({
        httpStatus: z
          .union([
            httpStatus,
            z
              .tuple([httpStatus, httpStatus])
              .refine(([lo, hi]) => lo <= hi, { message: "the range must be [low, high]" }),
          ])
          .optional(),
        kind: z.string().trim().min(1).max(64).optional(),
        message: z
          .string()
          .min(1)
          // The bound is compileRulePattern's (RULE_PATTERN_MAX), so a long pattern gets one message.
          .superRefine((pattern, ctx) => {
            const compiled = compileRulePattern(pattern);
            if (typeof compiled === "string") ctx.addIssue({ code: "custom", message: compiled });
          })
          .optional(),
      })
      .strict()
      .refine((w) => w.httpStatus !== undefined || w.kind !== undefined || w.message !== undefined, {
        message: "a rule needs at least one condition: a status, a kind or a message pattern",
      }),
    then: z.enum(ERROR_RULE_MEANINGS),
    why: z.string().trim().max(300).optional(),
  })
  .strict() satisfies z.ZodType<ErrorRule>;

export const contractBodySchema = z
  .object({
    effect: z.enum(EFFECT_CLASSES),
    idempotencyKey: z.enum(["required", "optional", "unsupported"]),
    reconcile: reconcileSchema.nullable(),
    approval: z.enum(["required", "not_required"]),
    maxAttempts: z.int().min(1).max(100),
    backoff: z
      .object({ baseMs: z.int().min(0).max(3_600_000), maxMs: z.int().min(0).max(DAY_MS) })
      .strict()
      .refine((b) => b.maxMs >= b.baseMs, { message: "maxMs must be at least baseMs", path: ["maxMs"] }),
    keyRetentionMs: z
      .int()
      .min(1000)
      .max(365 * DAY_MS)
      .nullable()
      .optional(),
    dependency: z.string().regex(DEPENDENCY_NAME, "letters, digits and . _ : - only").nullable().optional(),
    description: z.string().max(2000).nullable().optional(),
    /** How long an operation may wait for a person before it becomes EXPIRED (1 s to 30 days; null: 24 h). */
    approvalTtlMs: z
      .int()
      .min(1000)
      .max(30 * DAY_MS)
      .nullable()
      .optional(),
    /** How long an operation may stay UNKNOWN before the unknowns.aged event fires (1 s to 30 days; null: 15 min). */
    unknownAlertMs: z
      .int()
      .min(1000)
      .max(30 * DAY_MS)
      .nullable()
      .optional(),
    /** Quorum: how many distinct persons must approve before an attempt is granted. */
    approvals: z.int().min(1).max(10).optional(),
    /** MCP gateway: how long the upstream may take to answer (100 ms to 10 min; default 30 s). */
    timeoutMs: z.int().min(100).max(600_000).nullable().optional(),
    /**
     * MCP gateway: where a call's idempotency key comes from. "args" (the default): the canonical arguments, within the
     * run; or a template over the arguments such as "refund:{order_id}", the same key across runs.
     */
    keyFrom: z
      .string()
      .max(200)
      .refine((k) => k === "args" || KEY_TEMPLATE.test(k), {
        message: 'must be "args" or a template naming at least one argument, such as "refund:{order_id}"',
      })
      .nullable()
      .optional(),
    /** MCP gateway: what an answer with isError means (fatal: not retried; transient; unknown: the effect may exist). */
    toolError: z.enum(TOOL_ERROR_MEANINGS).nullable().optional(),
    /** enforce (the default), or observe: forward every call and record what enforcing would have done. */
    mode: z.enum(CONTRACT_MODES).nullable().optional(),
    /** Ordered error rules, read before the global error table; the first that matches decides (null: none). */
    errorRules: z.array(errorRuleSchema).max(ERROR_RULES_MAX).nullable().optional(),
    /** Spans may carry the call's argument and result values (docs/observability.md); off by default. */
    traceArguments: z.boolean().optional(),
    /** The version the editor started from; a save against an older one is refused, not overwritten. */
    expectedVersion: z.int().min(0).optional(),
  })
  .strict()
  .refine((c) => c.effect !== "IDEMPOTENT" || c.idempotencyKey !== "unsupported", {
    message: "an IDEMPOTENT tool converges by its key, so the key cannot be unsupported",
    path: ["idempotencyKey"],
  });

export type ContractBody = z.infer<typeof contractBodySchema>;
/** The stored rules: everything but the optimistic-concurrency field. */
export type ContractRules = Omit<ContractBody, "expectedVersion">;

export interface ContractView extends ContractRules {
  tool: string;
  version: number;
  keyRetentionMs: number | null;
  dependency: string | null;
  description: string | null;
  approvalTtlMs: number | null;
  approvals: number;
  timeoutMs: number;
  keyFrom: string;
  toolError: (typeof TOOL_ERROR_MEANINGS)[number];
  mode: (typeof CONTRACT_MODES)[number];
  errorRules: ErrorRule[];
  traceArguments: boolean;
  author: string;
  createdAt: string;
}
