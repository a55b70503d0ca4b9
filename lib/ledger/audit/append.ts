// Audit records: appended in the same transaction as the change they explain, each one linked into the hash chain.
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Actor } from "../actor";
import { eventHash } from "./chain";
import { newId } from "../ids";

export type AuditSubject = "operation" | "contract" | "dependency" | "user" | "api_key";

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
 * Appends the events to the audit log inside the caller's Prisma transaction (operation commands append through
 * their store, lib/ledger/store, with chainAuditEvents). Call it last in the transaction: moving the
 * chain's head locks it (a row lock on PostgreSQL, the write lock on SQLite) until the transaction ends, so audit
 * appends are serialized and the chain never forks.
 */
export async function appendAudit(tx: Prisma.TransactionClient, inputs: AuditInput[]): Promise<void> {
  if (inputs.length === 0) return;
  // The update returns the new seq and the head's hash as it was: the previous event's.
  const head = await tx.auditChain.update({ where: { id: 1 }, data: { seq: { increment: inputs.length } } });
  const { rows, hash } = chainAuditEvents(head, inputs);
  await tx.auditEvent.createMany({ data: rows });
  await tx.auditChain.update({ where: { id: 1 }, data: { hash } });
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
    onBehalfOf: input.actor.type === "api_key" ? (input.actor.onBehalfOf ?? null) : null,
    action: input.action,
    fromPhase: input.fromPhase ?? null,
    toPhase: input.toPhase ?? null,
    reason: input.reason ?? null,
    data: input.data ? JSON.stringify(input.data) : null,
    createdAt: input.at,
  };
}
