// Request bodies and query strings of the agent API v1, as zod schemas.
import { z } from "zod";
import { LEASE_MS_MAX, LEASE_MS_MIN } from "@/lib/ledger/commands/lease";
import { TOOL_NAME } from "@/lib/ledger/contracts/contract-schema";
import { reconcileEvidence } from "@/lib/ledger/evidence";
import { MAX_PAGE } from "@/lib/ledger/reads/operations";
import { EFFECT_CLASSES, PHASES } from "@/lib/retry-gate/types";

const id = z.string().trim().min(1).max(200);
const fence = z.int().min(0);
const leaseMs = z.int().min(LEASE_MS_MIN).max(LEASE_MS_MAX);
const reason = z.string().trim().min(1, "a reason is required").max(2000);

export const planBody = z
  .object({
    tool: z.string().regex(TOOL_NAME, "letters, digits and . _ : - only, at most 128"),
    args: z.json(),
    idempotencyKey: z.string().min(1).max(255).optional(),
    runId: id.optional(),
    agentId: id.optional(),
    claim: z.object({ workerId: id, leaseMs }).strict().optional(),
  })
  .strict();

export const claimBody = z.object({ workerId: id, leaseMs }).strict();
export const heartbeatBody = z.object({ fence, leaseMs }).strict();
export const dispatchBody = z.object({ fence }).strict();

export const outcomeBody = z
  .object({
    fence,
    result: z.enum(["confirmed", "failed", "unknown"]),
    providerId: z.string().min(1).max(500).optional(),
    error: z
      .object({
        kind: z.string().max(100).optional(),
        httpStatus: z.int().min(100).max(599).optional(),
        message: z.string().max(4000).optional(),
        retryAfterMs: z.int().min(0).max(86_400_000).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const reconcileBody = z
  .object({
    fence: fence.optional(),
    outcome: z.enum(["applied", "not_applied"]),
    providerId: z.string().min(1).max(500).optional(),
    evidence: reconcileEvidence,
    reason: reason.optional(),
    approveRetry: z.boolean().optional(),
  })
  .strict();

/**
 * `actor` is accepted for older clients and ignored: the decision is the key's person's, named by id
 * (docs/authority.md#principals).
 */
export const decisionBody = z.object({ actor: z.string().max(200).optional(), reason }).strict();

export const listQuery = z
  .object({
    phase: z.enum(PHASES).optional(),
    tool: z.string().max(128).optional(),
    effect: z.enum(EFFECT_CLASSES).optional(),
    runId: z.string().max(200).optional(),
    agentId: z.string().max(200).optional(),
    cursor: z.string().max(64).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(50),
  })
  .strict();
