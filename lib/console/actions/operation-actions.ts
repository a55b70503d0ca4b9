"use server";
// Console actions on one operation (approve a retry, reject, reconcile): operator role, a reason, and a refusal if the
// operation moved on since the person looked.
import { z } from "zod";
import { consoleAction } from "@/lib/console/actions/console-action";
import { approveOperation, rejectOperation } from "@/lib/ledger/commands/approval";
import { LedgerError } from "@/lib/ledger/errors";
import type { OperationView } from "@/lib/ledger/reads/operation-view";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";
import { EFFECT_EVIDENCE, PHASES, type Decision, type Phase } from "@/lib/retry-gate/types";
import { DECIDED_FIRST_BY_ANOTHER, decidedFirstByAnother } from "@/lib/console/refusals";

/**
 * What the person saw when they decided: the fields a human decision changes. Not updatedAt or the fence, which a
 * worker's heartbeat or claim also moves without anyone deciding anything.
 */
const seenSchema = z
  .object({
    phase: z.enum(PHASES),
    attempt: z.int().min(0),
    approvedAttempt: z.int().min(0).nullable(),
    evidence: z.enum(EFFECT_EVIDENCE),
  })
  .strict();

const decisionSchema = z
  .object({
    id: z.string().trim().min(1).max(64),
    seen: seenSchema,
    reason: z.string().trim().min(1, "Give a reason; it is recorded with your name.").max(2000),
  })
  .strict();

const reconcileSchema = decisionSchema
  .extend({
    outcome: z.enum(["applied", "not_applied"]),
    providerId: z.string().trim().max(500).optional(),
    evidence: z.string().trim().max(20_000).optional(),
    approveRetry: z.boolean().optional(),
  })
  .strict();

export type DecisionInput = z.input<typeof decisionSchema>;
export type ReconcileInput = z.input<typeof reconcileSchema>;
export type SeenVersion = z.input<typeof seenSchema>;

/** What the page needs back; it refetches the whole operation anyway. */
export interface ActionOutcome {
  id: string;
  phase: Phase;
  decision: Decision;
}

const outcomeOf = (op: OperationView): ActionOutcome => ({ id: op.id, phase: op.phase, decision: op.decision });

/**
 * The ledger checks what the person saw, and the phase, inside its transaction; a refusal there means another person
 * (or a worker) acted first, and reads the same to the person.
 */
async function decided<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof LedgerError && decidedFirstByAnother(error.code)) {
      throw new LedgerError("write_conflict", DECIDED_FIRST_BY_ANOTHER, { operationId: error.extra.operationId });
    }
    throw error;
  }
}

export const approveOperationAction = consoleAction("operator", decisionSchema, async (input, ctx) => {
  return outcomeOf(
    await decided(() =>
      approveOperation(ctx.ledger, input.id, { reason: input.reason, seen: input.seen }, ctx.actor, ctx.now),
    ),
  );
});

export const rejectOperationAction = consoleAction("operator", decisionSchema, async (input, ctx) => {
  return outcomeOf(
    await decided(() =>
      rejectOperation(ctx.ledger, input.id, { reason: input.reason, seen: input.seen }, ctx.actor, ctx.now),
    ),
  );
});

export const reconcileOperationAction = consoleAction("operator", reconcileSchema, async (input, ctx) => {
  const view = await decided(() =>
    reconcileOperation(
      ctx.ledger,
      input.id,
      {
        outcome: input.outcome,
        // A provider id typed before switching to "did not happen" is not evidence of anything.
        ...(input.outcome === "applied" && input.providerId ? { providerId: input.providerId } : {}),
        evidence: input.evidence ? { note: input.evidence, source: "console" } : null,
        reason: input.reason,
        ...(input.approveRetry ? { approveRetry: true } : {}),
        seen: input.seen,
      },
      ctx.actor,
      ctx.now,
    ),
  );
  return outcomeOf(view);
});
