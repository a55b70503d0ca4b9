// The audit hash chain: every event carries sha256(previous hash, its own fields), so a changed, removed or inserted
// event is detectable.
import { hash } from "node:crypto";

/** The head's hash before the first chained event. */
export const GENESIS_HASH = "0".repeat(64);

/** The stored fields an event's hash covers, in a fixed order. */
export interface ChainedEvent {
  seq: number;
  id: string;
  subjectType: string;
  subjectId: string;
  actorType: string;
  actorId: string;
  onBehalfOf: string | null;
  /** Hashed after createdAt when present; events written before labels were stored have none (issue #16). */
  actorLabel?: string | null;
  action: string;
  fromPhase: string | null;
  toPhase: string | null;
  reason: string | null;
  data: string | null;
  createdAt: Date;
}

export function eventHash(previousHash: string, event: ChainedEvent): string {
  // The same bytes as JSON.stringify([seq, ...fields]): the seq is an integer, so "[" + seq + "," + the tail. One
  // string through the one-shot hash: every audit event is hashed on a command's path, and a Hash object costs more.
  return hash("sha256", `${previousHash}\n[${event.seq},${eventHashTail(event)}`, "hex");
}

/**
 * The hashed JSON after the seq: `"id","subjectType",...,"createdAt"]`. PostgreSQL's opledger_append_audit hashes it
 * behind the seq it assigns, so both engines chain the same bytes.
 */
export function eventHashTail(event: Omit<ChainedEvent, "seq">): string {
  const fields = [
    event.id,
    event.subjectType,
    event.subjectId,
    event.actorType,
    event.actorId,
    event.onBehalfOf,
    event.action,
    event.fromPhase,
    event.toPhase,
    event.reason,
    event.data,
    event.createdAt.toISOString(),
    ...(event.actorLabel != null ? [event.actorLabel] : []),
  ];
  return JSON.stringify(fields).slice(1);
}
