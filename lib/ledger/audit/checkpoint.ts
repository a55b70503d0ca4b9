// Signed checkpoints of the audit chain's head: with the signing key outside the database, a chain rewritten
// consistently by someone with database access no longer matches them (docs/decisions/014-signed-audit-checkpoints.md).
import { sign, verify } from "node:crypto";
import type { Ledger } from "@/lib/ledger/ledger";
import type { SigningKey, VerifyingKey } from "./signing-key";

/** A checkpoint as stored in AuditCheckpoint. */
export interface Checkpoint {
  seq: number;
  hash: string;
  /** base64 Ed25519 signature of checkpointMessage(seq, hash, createdAt). */
  signature: string;
  /** sha256 hex of the signing key's public SPKI DER. */
  keyId: string;
  createdAt: Date;
}

/** The exact bytes a checkpoint's signature covers; the prefix keeps them from meaning anything anywhere else. */
export function checkpointMessage(head: { seq: number; hash: string }, createdAt: Date): Buffer {
  return Buffer.from(`opledger-audit-checkpoint\n${head.seq}\n${head.hash}\n${createdAt.toISOString()}`, "utf8");
}

export function signCheckpoint(key: SigningKey, head: { seq: number; hash: string }, createdAt: Date): Checkpoint {
  const signature = sign(null, checkpointMessage(head, createdAt), key.privateKey).toString("base64");
  return { seq: head.seq, hash: head.hash, signature, keyId: key.keyId, createdAt };
}

/** Whether the checkpoint's signature is the given key's over its own seq, hash and time. */
export function checkpointSignedBy(key: VerifyingKey, checkpoint: Checkpoint): boolean {
  // A malformed signature (wrong length, not base64) is simply not a valid one.
  try {
    return verify(
      null,
      checkpointMessage(checkpoint, checkpoint.createdAt),
      key.publicKey,
      Buffer.from(checkpoint.signature, "base64"),
    );
  } catch {
    return false;
  }
}

export interface CheckpointPolicy {
  /** A checkpoint once the head is this many events past the newest one. */
  every: number;
  /** ... or once this long has passed since the newest one, if the head moved at all. */
  intervalMs: number;
}

export type CheckpointDecision =
  { write: true; reason: "first" | "events" | "interval" } | { write: false; reason: "empty" | "unmoved" | "not_yet" };

/**
 * Whether to sign the head now. Pure: the newest checkpoint, the head and the clock come in. The first event gets a
 * checkpoint at once, so a young chain is anchored too; afterwards every `every` events, or after `intervalMs` if the
 * head moved (a quiet ledger writes none).
 */
export function decideCheckpoint(
  newest: { seq: number; createdAt: Date } | null,
  head: { seq: number },
  now: Date,
  policy: CheckpointPolicy,
): CheckpointDecision {
  if (head.seq === 0) return { write: false, reason: "empty" };
  if (!newest) return { write: true, reason: "first" };
  // A head behind the newest checkpoint is never signed: verify-audit names that as a checkpoint past the chain.
  if (head.seq <= newest.seq) return { write: false, reason: "unmoved" };
  if (head.seq - newest.seq >= policy.every) return { write: true, reason: "events" };
  if (now.getTime() - newest.createdAt.getTime() >= policy.intervalMs) return { write: true, reason: "interval" };
  return { write: false, reason: "not_yet" };
}

export type CheckpointOutcome =
  | { written: Checkpoint; reason: "first" | "events" | "interval" }
  | { written: null; reason: "empty" | "unmoved" | "not_yet" | "taken" };

/**
 * Reads the head and the newest checkpoint, and signs the head when the policy says so. Several instances may run it
 * at once: the head's seq is the checkpoint's key, so the second insert of one head fails as a duplicate and is
 * ignored ("taken").
 */
export async function checkpointHead(
  ledger: Ledger,
  key: SigningKey,
  policy: CheckpointPolicy,
  now: Date,
): Promise<CheckpointOutcome> {
  // The head's seq and hash are committed together with the events they name, so this one row is a consistent head.
  const head = await ledger.db.auditChain.findUnique({ where: { id: 1 }, select: { seq: true, hash: true } });
  if (!head) throw new Error("the audit chain's head row (AuditChain id 1) is missing");
  const newest = await ledger.db.auditCheckpoint.findFirst({
    orderBy: { seq: "desc" },
    select: { seq: true, createdAt: true },
  });
  const decision = decideCheckpoint(newest, head, now, policy);
  if (!decision.write) return { written: null, reason: decision.reason };
  const checkpoint = signCheckpoint(key, head, now);
  try {
    await ledger.db.auditCheckpoint.create({ data: checkpoint });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "P2002") return { written: null, reason: "taken" };
    throw error;
  }
  return { written: checkpoint, reason: decision.reason };
}
