// Audit records: appended in the same transaction as the change they explain, each one linked into the hash chain.
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Actor } from "./actor";
import { auditChainOf, eventHash } from "./audit-chain";
import { newId } from "./ids";

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
 * head of the events' chain locks it (a row lock on PostgreSQL, the write lock on SQLite) until the transaction ends,
 * so appends to one chain are serialized and it never forks.
 */
export async function appendAudit(tx: Prisma.TransactionClient, inputs: AuditInput[]): Promise<void> {
  if (inputs.length === 0) return;
  const chain = auditChainFor(inputs);
  // The update returns the new seq and the head's hash as it was: the previous event's.
  const head = await tx.auditChain.update({ where: { id: chain }, data: { seq: { increment: inputs.length } } });
  const { rows, hash } = chainAuditEvents(chain, head, inputs);
  await tx.auditEvent.createMany({ data: rows });
  await tx.auditChain.update({ where: { id: chain }, data: { hash } });
}

/** The chain one append goes to: its first event's subject's (an append is one command's events, nearly always one subject's). */
export function auditChainFor(inputs: AuditInput[]): number {
  const first = inputs[0];
  return first ? auditChainOf(first.subjectType, first.subjectId) : 1;
}

/**
 * The rows of the events, numbered and hashed onto `chain`. `head` is the chain's head just after it was moved by
 * `inputs.length`: its seq is the last event's, its hash still the previous event's. Returns the new head hash.
 */
export function chainAuditEvents(chain: number, head: { seq: number; hash: string }, inputs: AuditInput[]) {
  let seq = head.seq - inputs.length;
  let hash = head.hash;
  const rows = inputs.map((input) => {
    seq += 1;
    const row = { ...auditRow(input), chain, seq };
    hash = eventHash(hash, row);
    return { ...row, hash };
  });
  return { rows, hash };
}

function auditRow(input: AuditInput) {
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
