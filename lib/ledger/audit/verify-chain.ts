// verify-audit: walks the audit hash chain from the genesis hash to the head and names every changed, removed or
// inserted event; safe beside a live server (docs/decisions/009-audit-hash-chain.md). Given public keys, it also holds
// the chain to its signed checkpoints, and to a head saved elsewhere (docs/decisions/014-signed-audit-checkpoints.md).
import type { Ledger } from "@/lib/ledger/ledger";
import { eventHash, GENESIS_HASH } from "./chain";
import { checkpointSignedBy, type Checkpoint } from "./checkpoint";
import type { VerifyingKey } from "./signing-key";

export interface AuditChainReport {
  ok: boolean;
  /** Events in the chain. */
  chained: number;
  /** Events written before the chain began (by an older version); they carry no hash. */
  unchained: number;
  head: { seq: number; hash: string };
  /** What is wrong, one sentence each (at most MAX_PROBLEMS). */
  problems: string[];
  /** What is not wrong but leaves the chain less anchored than asked, one sentence each. */
  warnings: string[];
  /** With verifyingKeys: how many signed checkpoints were checked, and the newest of them. */
  checkpoints?: { checked: number; newest: Checkpoint | null };
}

/** A head saved elsewhere earlier (a ticket, a log store): its hash, and its seq when it was saved with one. */
export interface ExpectedHead {
  seq: number | null;
  hash: string;
}

export interface VerifyAuditOptions {
  /** Check every signed checkpoint: signed by one of these keys, and the chain has its hash at its seq. */
  verifyingKeys?: VerifyingKey[];
  /** With verifyingKeys: no checkpoint at all is a problem, not only a warning. */
  requireCheckpoint?: boolean;
  /** The chain must still contain this head, at or before its own head. */
  expectHead?: ExpectedHead;
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
export async function verifyAuditChain(ledger: Ledger, options: VerifyAuditOptions = {}): Promise<AuditChainReport> {
  const problems: string[] = [];
  const warnings: string[] = [];
  const problem = (text: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(text);
  };
  const head = await ledger.db.auditChain.findUnique({ where: { id: 1 } });
  if (!head) problem("the chain's head row (AuditChain id 1) is missing");
  const end = head?.seq ?? Number.MAX_SAFE_INTEGER;

  let previous = { seq: 0, hash: GENESIS_HASH };
  let chained = 0;
  let firstAt: Date | null = null;
  const expected = options.expectHead;
  // Where the chain holds the expected head's hash; the genesis hash is held before the first event.
  let expectedAt: number | null = expected?.hash === GENESIS_HASH ? 0 : null;
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
      const recomputed = eventHash(previous.hash, { ...event, seq });
      if (event.hash !== recomputed)
        problem(
          `event ${seq} (${event.id}, ${event.action}) does not match its hash: it or the event before it was changed`,
        );
      if (expected && event.hash === expected.hash) expectedAt = seq;
      // Continue from the stored hash, so one changed event is reported once rather than breaking everything after it.
      previous = { seq, hash: event.hash ?? recomputed };
    }
    if (page.length < PAGE) break;
  }
  if (head && (head.seq !== previous.seq || head.hash !== previous.hash)) {
    problem(
      `the head says the chain ends at event ${head.seq} (${head.hash.slice(0, 12)}…), ` +
        `but the last event is ${previous.seq} (${previous.hash.slice(0, 12)}…): ` +
        "events were removed from the end or added around the chain",
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
  if (expected) {
    const saved = `${expected.seq === null ? "" : `${expected.seq}:`}${expected.hash.slice(0, 12)}…`;
    if (expectedAt === null)
      problem(
        `the expected head ${saved} is not in the chain up to its head ${previous.seq}: ` +
          "the chain was rewritten or cut back since that head was saved",
      );
    else if (expected.seq !== null && expectedAt !== expected.seq)
      problem(
        `the expected head ${saved} is event ${expectedAt} in the chain, not event ${expected.seq}: ` +
          "it was saved from another chain, or this one was renumbered",
      );
  }
  const checkpoints = options.verifyingKeys
    ? await verifyCheckpoints(ledger, options.verifyingKeys, problem)
    : undefined;
  if (checkpoints?.checked === 0) {
    const none = "there are no signed checkpoints: nothing outside the database vouches for the chain";
    if (options.requireCheckpoint) problem(none);
    else warnings.push(none);
  }
  return {
    ok: problems.length === 0,
    chained,
    unchained,
    head: head ? { seq: head.seq, hash: head.hash } : previous,
    problems,
    warnings,
    ...(checkpoints ? { checkpoints } : {}),
  };
}

/**
 * Every checkpoint, in seq order: its keyId names one of the keys, its signature is that key's, and the chain still has
 * its hash at its seq. A chain rewritten consistently after a checkpoint was signed fails at that checkpoint.
 */
async function verifyCheckpoints(
  ledger: Ledger,
  keys: VerifyingKey[],
  problem: (text: string) => void,
): Promise<{ checked: number; newest: Checkpoint | null }> {
  let checked = 0;
  let newest: Checkpoint | null = null;
  let after = -1;
  for (;;) {
    const page = await ledger.db.auditCheckpoint.findMany({
      where: { seq: { gt: after } },
      orderBy: { seq: "asc" },
      take: PAGE,
    });
    if (page.length === 0) break;
    const events = await ledger.db.auditEvent.findMany({
      where: { seq: { in: page.map((c) => c.seq) } },
      select: { seq: true, hash: true },
    });
    const hashAt = new Map<number, string | null>(events.map((e) => [e.seq as number, e.hash]));
    hashAt.set(0, GENESIS_HASH);
    for (const checkpoint of page) {
      checked++;
      newest = checkpoint;
      const seq = checkpoint.seq;
      const key = keys.find((k) => k.keyId === checkpoint.keyId);
      const chainHash = hashAt.get(seq);
      if (!key)
        problem(
          `checkpoint ${seq} names signing key ${checkpoint.keyId.slice(0, 16)}…, ` +
            "which is none of the given public keys: it was forged, or signed by a key not given",
        );
      else if (!checkpointSignedBy(key, checkpoint))
        problem(
          `checkpoint ${seq} is not signed by key ${key.keyId.slice(0, 16)}…: ` +
            "its seq, hash, time or signature was changed, or it was forged",
        );
      else if (chainHash === undefined)
        problem(
          `checkpoint ${seq} was signed for hash ${checkpoint.hash.slice(0, 12)}…, ` +
            `but the chain has no event ${seq}: events were removed`,
        );
      else if (chainHash !== checkpoint.hash)
        problem(
          `checkpoint ${seq} was signed for hash ${checkpoint.hash.slice(0, 12)}…, ` +
            `but the chain has ${(chainHash ?? "no hash").slice(0, 12)}… there: the chain was rewritten after it was signed`,
        );
    }
    after = page.at(-1)?.seq ?? after;
    if (page.length < PAGE) break;
  }
  return { checked, newest };
}
