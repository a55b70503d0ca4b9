// The person behind each API key that planned an operation, for the four-eyes rule (authority.ts tiedPrincipals). A
// key's person is set when the key is made and never changes, so what was read once is kept for the ledger's life.
import { env } from "@/lib/platform/config/env";
import type { Ledger } from "@/lib/ledger/ledger";
import { principalId, type Actor } from "../actor";
import { tiedPrincipals, type KeyOwners } from "./authority";

const known = new WeakMap<Ledger, Map<string, string | null>>();

/** Read in chunks, far below either engine's bound-parameter limit. */
const CHUNK = 500;

/** The persons the keys `keyIds` are bound to (null for none, or a key not stored), read before any transaction. */
export async function keyOwnersOf(ledger: Ledger, keyIds: Iterable<string>): Promise<KeyOwners> {
  let owners = known.get(ledger);
  if (!owners) known.set(ledger, (owners = new Map<string, string | null>()));
  const missing = [...new Set(keyIds)].filter((id) => !owners.has(id));
  for (let i = 0; i < missing.length; i += CHUNK) {
    const ids = missing.slice(i, i + CHUNK);
    const rows = await ledger.db.apiKey.findMany({
      where: { id: { in: ids } },
      select: { id: true, ownerUserId: true },
    });
    const found = new Map(rows.map((row) => [row.id, row.ownerUserId]));
    for (const id of ids) owners.set(id, found.get(id) ?? null);
  }
  return owners;
}

/**
 * The key owners an approval of operation `id` needs, read before the command's transaction (a Prisma read inside a
 * store transaction would wait for it on SQLite). Empty when the operation does not exist: the command says so.
 */
export async function keyOwnersForOperation(ledger: Ledger, id: string): Promise<KeyOwners> {
  const rows = await ledger.store.operationContext(id);
  const key = rows?.op.plannedByKeyId;
  return keyOwnersOf(ledger, key ? [key] : []);
}

/**
 * Whether the four-eyes rule keeps `actor` from approving operation `id` (directly or with a reconciliation): the
 * console offers them no approval, as the command would refuse it (checkApprover).
 */
export async function fourEyesKeepsOut(
  ledger: Ledger,
  id: string,
  actor: Actor,
  fourEyes: boolean = env().OPLEDGER_FOUR_EYES === "on",
): Promise<boolean> {
  if (!fourEyes) return false;
  const rows = await ledger.store.operationContext(id);
  if (!rows) return false;
  const owners = await keyOwnersOf(ledger, rows.op.plannedByKeyId ? [rows.op.plannedByKeyId] : []);
  return tiedPrincipals(rows.op, owners).has(principalId(actor));
}
