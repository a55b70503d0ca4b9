// verify-audit: walks the audit hash chain from the genesis hash to the head and names every changed, removed or
// inserted event; safe beside a live server (docs/decisions/009-audit-hash-chain.md).
import type { Ledger } from "@/lib/ledger/ledger";
import { eventHash, GENESIS_HASH } from "./chain";

export interface AuditChainReport {
  ok: boolean;
  /** Events in the chain. */
  chained: number;
  /** Events written before the chain began (by an older version); they carry no hash. */
  unchained: number;
  head: { seq: number; hash: string };
  /** What is wrong, one sentence each (at most MAX_PROBLEMS). */
  problems: string[];
}

const PAGE = 1000;
const MAX_PROBLEMS = 20;

/**
 * Walks the chain in seq order up to the head and recomputes every hash. A changed event breaks its own hash; a removed
 * one leaves a gap in seq; a removed tail leaves the head ahead of the last event; an event chained past the head
 * without moving it, or inserted without the chain (unchained but younger than the chain's start), was added around it.
 * Safe on a live server: the walk stops at the head as it was read first (events and head are committed together, so
 * every event up to it is there), and events past the head are judged against the head read after them.
 */
export async function verifyAuditChain(ledger: Ledger): Promise<AuditChainReport> {
  const problems: string[] = [];
  const problem = (text: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(text);
  };
  const head = await ledger.db.auditChain.findUnique({ where: { id: 1 } });
  if (!head) problem("the chain's head row (AuditChain id 1) is missing");
  const end = head?.seq ?? Number.MAX_SAFE_INTEGER;

  let previous = { seq: 0, hash: GENESIS_HASH };
  let chained = 0;
  let firstAt: Date | null = null;
  for (;;) {
    const page = await ledger.db.auditEvent.findMany({
      where: { seq: { gt: previous.seq, lte: end } },
      orderBy: { seq: "asc" },
      take: PAGE,
    });
    for (const event of page) {
      const seq = event.seq as number;
      firstAt ??= event.createdAt;
      chained++;
      if (seq !== previous.seq + 1)
        problem(`events ${previous.seq + 1} to ${seq - 1} are missing (before ${event.id})`);
      const expected = eventHash(previous.hash, { ...event, seq });
      if (event.hash !== expected)
        problem(
          `event ${seq} (${event.id}, ${event.action}) does not match its hash: it or the event before it was changed`,
        );
      // Continue from the stored hash, so one changed event is reported once rather than breaking everything after it.
      previous = { seq, hash: event.hash ?? expected };
    }
    if (page.length < PAGE) break;
  }
  if (head && (head.seq !== previous.seq || head.hash !== previous.hash)) {
    problem(
      `the head says the chain ends at event ${head.seq} (${head.hash.slice(0, 12)}…), but the last event is ${previous.seq} (${previous.hash.slice(0, 12)}…): events were removed from the end or added around the chain`,
    );
  }
  if (head) {
    // The newest event first, then the head: whatever was committed before that read is covered by the head after it.
    const newest = (await ledger.db.auditEvent.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
    const now = await ledger.db.auditChain.findUnique({ where: { id: 1 } });
    if (now && newest > now.seq)
      problem(
        `events ${now.seq + 1} to ${newest} are chained past the head (${now.seq}): they were added around the chain`,
      );
  }
  const unchained = await ledger.db.auditEvent.count({ where: { seq: null } });
  if (firstAt && unchained > 0) {
    const late = await ledger.db.auditEvent.count({ where: { seq: null, createdAt: { gt: firstAt } } });
    if (late > 0)
      problem(
        `${late} events without a place in the chain are younger than the chain's first event: they were inserted around it`,
      );
  }
  return {
    ok: problems.length === 0,
    chained,
    unchained,
    head: head ? { seq: head.seq, hash: head.hash } : previous,
    problems,
  };
}
