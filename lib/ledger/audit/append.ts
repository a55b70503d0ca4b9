// Audit records: appended in the same transaction as the change they explain (by the store's tx.appendAudit, or by
// auditedTransaction for Prisma-side writes), each one linked into the hash chain.
import { actorLabel, personOf, type Actor } from "../actor";
import { eventHash } from "./chain";
import { newId } from "../ids";

export type AuditSubject = "operation" | "contract" | "dependency" | "user" | "api_key" | "webhook" | "bulk" | "run";

export interface AuditInput {
  subjectType: AuditSubject;
  subjectId: string;
  actor: Actor;
  action: string;
  fromPhase?: string | null;
  toPhase?: string | null;
  reason?: string | null;
  data?: Record<string, unknown>;
  at: Date;
}

/**
 * The rows of the events, numbered and hashed onto the chain. `head` is the chain's head just after it was moved by
 * `inputs.length`: its seq is the last event's, its hash still the previous event's. Returns the new head hash.
 */
export function chainAuditEvents(head: { seq: number; hash: string }, inputs: AuditInput[]) {
  let seq = head.seq - inputs.length;
  let hash = head.hash;
  const rows = inputs.map((input) => {
    seq += 1;
    const row = { ...auditRow(input), seq };
    hash = eventHash(hash, row);
    return { ...row, hash };
  });
  return { rows, hash };
}

/** An event's row before it is chained (no seq, no hash). */
export function auditRow(input: AuditInput) {
  return {
    id: newId(),
    subjectType: input.subjectType,
    subjectId: input.subjectId,
    actorType: input.actor.type,
    actorId: input.actor.id,
    onBehalfOf: input.actor.type === "api_key" ? (personOf(input.actor)?.id ?? null) : null,
    actorLabel: actorLabel(input.actor),
    action: input.action,
    fromPhase: input.fromPhase ?? null,
    toPhase: input.toPhase ?? null,
    reason: input.reason ?? null,
    data: input.data ? JSON.stringify(input.data) : null,
    createdAt: input.at,
  };
}
