// Key rotation: the operations earlier keys of an agent planned are handed to its new key, so its workers can go on
// driving them. Done by an administrator or opledger itself, in one audited transaction.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../actor";
import { Prisma } from "@/lib/platform/generated/prisma/client";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";

/**
 * Moves every operation planned by one of `fromKeyIds` to `toKeyId`. Each moved row's version rises, so a command
 * the old key had in flight fails its conditional write and, run again, finds the operation is no longer its own.
 * Returns how many operations moved.
 */
export async function handOverOperations(
  ledger: Ledger,
  input: { fromKeyIds: string[]; toKeyId: string },
  actor: Actor,
  now: Date,
): Promise<number> {
  const from = input.fromKeyIds.filter((id) => id !== input.toKeyId);
  if (from.length === 0) return 0;
  return auditedTransaction(ledger, async (tx, audit) => {
    // Raw, so updatedAt (when the operation entered its phase, the queues' order) stays as it was.
    const count = await tx.$executeRaw`UPDATE "Operation" SET "plannedByKeyId" = ${input.toKeyId},
      "version" = "version" + 1 WHERE "plannedByKeyId" IN (${Prisma.join(from)})`;
    if (count > 0) {
      audit([
        {
          subjectType: "api_key",
          subjectId: input.toKeyId,
          actor,
          action: "api_key.operations_handed_over",
          reason: `${count} operation(s) of the agent's earlier keys now belong to this key`,
          data: { fromKeyIds: from, operations: count },
          at: now,
        },
      ]);
    }
    return count;
  });
}
