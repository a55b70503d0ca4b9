// Signs the audit chain's head on a timer for the life of the server process, when OPLEDGER_AUDIT_SIGNING_KEY is set
// (docs/decisions/014-signed-audit-checkpoints.md).
import type { Env } from "@/lib/platform/config/env";
import type { Ledger } from "@/lib/ledger/ledger";
import { checkpointHead, type CheckpointPolicy } from "@/lib/ledger/audit/checkpoint";
import { parseSigningKey, type SigningKey } from "@/lib/ledger/audit/signing-key";

/** How often the head is looked at: often enough that "every N events" is kept closely, and one small read. */
const LOOK_EVERY_MS = 5000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One look at the head, signing it if due. The log line of a written checkpoint carries its seq, hash and signature: a
 * log store that keeps it is the place elsewhere that `verify-audit --expect-head` compares against.
 */
export async function checkpointOnce(
  ledger: Ledger,
  key: SigningKey,
  policy: CheckpointPolicy,
  now: () => Date = () => new Date(),
): Promise<void> {
  try {
    const outcome = await checkpointHead(ledger, key, policy, now());
    if (outcome.written) {
      const c = outcome.written;
      console.log(
        `opledger: signed audit checkpoint ${c.seq}:${c.hash} at ${c.createdAt.toISOString()} (key ` +
          `${c.keyId.slice(0, 16)}…, signature ${c.signature})`,
      );
    }
  } catch (error) {
    console.error("opledger: the audit checkpoint failed:", message(error));
  }
}

/**
 * Starts the checkpoint timer if a signing key is configured; returns its stop function, or null when there is no
 * key. Throws, with one sentence that never contains the key, when the key is not an Ed25519 private key: start-up
 * stops there rather than run without the anchor the operator asked for.
 */
export function startAuditCheckpoints(
  ledger: Ledger,
  config: Pick<
    Env,
    "OPLEDGER_AUDIT_SIGNING_KEY" | "OPLEDGER_AUDIT_CHECKPOINT_EVERY" | "OPLEDGER_AUDIT_CHECKPOINT_INTERVAL_MS"
  >,
): (() => void) | null {
  if (!config.OPLEDGER_AUDIT_SIGNING_KEY) return null;
  const key = parseSigningKey(config.OPLEDGER_AUDIT_SIGNING_KEY);
  const policy: CheckpointPolicy = {
    every: config.OPLEDGER_AUDIT_CHECKPOINT_EVERY,
    intervalMs: config.OPLEDGER_AUDIT_CHECKPOINT_INTERVAL_MS,
  };
  let running = false;
  const timer = setInterval(
    () => {
      if (running) return;
      running = true;
      void checkpointOnce(ledger, key, policy).finally(() => {
        running = false;
      });
    },
    Math.min(LOOK_EVERY_MS, policy.intervalMs),
  );
  timer.unref();
  console.log(
    `opledger: signed audit checkpoints with key ${key.keyId.slice(0, 16)}… every ${policy.every} events, or ` +
      `every ${policy.intervalMs} ms while events arrive`,
  );
  return () => clearInterval(timer);
}
