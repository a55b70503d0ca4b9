// The audit hash chains: every event carries sha256(previous hash in its chain, its own fields), so a changed, removed or inserted event is detectable.
import { createHash } from "node:crypto";
import type { Db } from "@/lib/db";

/** A head's hash before the first event of its chain. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * How many chains there are (AuditChain rows 1 to 16, decision 011). An append locks the head of its chain until
 * its transaction commits, so commands on operations in different chains do not wait for each other.
 */
export const AUDIT_CHAINS = 16;

/** The chain a subject's events go to: all events of one operation (or user, key...) are in one chain, in order. */
export function auditChainOf(subjectType: string, subjectId: string): number {
  // FNV-1a, 32 bits: cheap and spreads ULIDs evenly; not a security property (verify does not depend on it).
  let hash = 0x811c9dc5;
  const text = `${subjectType}:${subjectId}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return 1 + (hash % AUDIT_CHAINS);
}

/** The stored fields an event's hash covers, in a fixed order. */
export interface ChainedEvent {
  seq: number;
  id: string;
  subjectType: string;
  subjectId: string;
  actorType: string;
  actorId: string;
  onBehalfOf: string | null;
  action: string;
  fromPhase: string | null;
  toPhase: string | null;
  reason: string | null;
  data: string | null;
  createdAt: Date;
}

export function eventHash(previousHash: string, event: ChainedEvent): string {
  const fields = [
    event.seq,
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
  ];
  return createHash("sha256").update(previousHash).update("\n").update(JSON.stringify(fields)).digest("hex");
}

export interface AuditChainReport {
  ok: boolean;
  /** Events in the chains. */
  chained: number;
  /** Events written before the chains began (by an older version); they carry no hash. */
  unchained: number;
  /** Each chain's head: the seq and hash of its last event. */
  heads: { chain: number; seq: number; hash: string }[];
  /** One value for all heads (sha256 of their hashes in chain order): kept elsewhere, it proves later that nothing up to now changed. */
  anchor: string;
  /** What is wrong, one sentence each (at most MAX_PROBLEMS). */
  problems: string[];
}

const PAGE = 1000;
const MAX_PROBLEMS = 20;

/**
 * Walks each chain in seq order and recomputes every hash. A changed event breaks its own hash; a removed one leaves a
 * gap in seq; a removed tail leaves the head ahead of the chain's last event; an event inserted without a chain shows
 * up as unchained but younger than the first chained event.
 */
export async function verifyAuditChain(client: Db): Promise<AuditChainReport> {
  const problems: string[] = [];
  const problem = (text: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(text);
  };
  const heads = await client.auditChain.findMany({ orderBy: { id: "asc" } });
  for (let chain = 1; chain <= AUDIT_CHAINS; chain++) {
    if (!heads.some((head) => head.id === chain)) problem(`the head of chain ${chain} (AuditChain id ${chain}) is missing`);
  }
  let chained = 0;
  let firstAt: Date | null = null;
  for (const head of heads) {
    const chain = head.id;
    let previous = { seq: 0, hash: GENESIS_HASH };
    for (;;) {
      const page = await client.auditEvent.findMany({ where: { chain, seq: { gt: previous.seq } }, orderBy: { seq: "asc" }, take: PAGE });
      for (const event of page) {
        const seq = event.seq as number;
        if (!firstAt || event.createdAt < firstAt) firstAt = event.createdAt;
        chained++;
        if (seq !== previous.seq + 1) problem(`events ${previous.seq + 1} to ${seq - 1} of chain ${chain} are missing (before ${event.id})`);
        const expected = eventHash(previous.hash, { ...event, seq });
        if (event.hash !== expected) problem(`event ${seq} of chain ${chain} (${event.id}, ${event.action}) does not match its hash: it or the event before it was changed`);
        // Continue from the stored hash, so one changed event is reported once rather than breaking everything after it.
        previous = { seq, hash: event.hash ?? expected };
      }
      if (page.length < PAGE) break;
    }
    if (head.seq !== previous.seq || head.hash !== previous.hash) {
      problem(`the head of chain ${chain} says it ends at event ${head.seq} (${head.hash.slice(0, 12)}…), but its last event is ${previous.seq} (${previous.hash.slice(0, 12)}…): events were removed from the end or added around the chain`);
    }
  }
  const strays = await client.auditEvent.count({ where: { seq: { not: null }, chain: { notIn: heads.map((head) => head.id) } } });
  if (strays > 0) problem(`${strays} events name a chain that has no head`);
  const unchained = await client.auditEvent.count({ where: { seq: null } });
  if (firstAt && unchained > 0) {
    const late = await client.auditEvent.count({ where: { seq: null, createdAt: { gt: firstAt } } });
    if (late > 0) problem(`${late} events without a place in a chain are younger than the first chained event: they were inserted around the chains`);
  }
  const anchor = createHash("sha256").update(heads.map((head) => head.hash).join("\n")).digest("hex");
  return { ok: problems.length === 0, chained, unchained, heads: heads.map((h) => ({ chain: h.id, seq: h.seq, hash: h.hash })), anchor, problems };
}
