// Console users: created by an admin (or from env at start-up), passwords hashed with scrypt.
import type { Ledger } from "@/lib/ledger/ledger";
import type { User } from "@/lib/platform/generated/prisma/client";
import type { Actor } from "@/lib/ledger/actor";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { newId } from "@/lib/ledger/ids";
import { hashPassword } from "./passwords";
import type { Role } from "./roles";

export async function createUser(
  ledger: Ledger,
  input: { email: string; name: string; role: Role; password: string },
  actor: Actor,
  now: Date,
): Promise<User> {
  const id = newId();
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  return auditedTransaction(ledger, async (tx, audit) => {
    const user = await tx.user.create({
      data: { id, email, name: input.name, role: input.role, passwordHash, createdAt: now },
    });
    audit([
      { subjectType: "user", subjectId: email, actor, action: "user.created", data: { role: input.role }, at: now },
    ]);
    return user;
  });
}

/** Creates the admin from OPLEDGER_ADMIN_EMAIL/PASSWORD unless a user with that email exists. */
export async function ensureAdminUser(ledger: Ledger, email: string, password: string, now: Date): Promise<boolean> {
  const existing = await ledger.db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (existing) return false;
  try {
    await createUser(
      ledger,
      { email, name: "Administrator", role: "admin", password },
      { type: "system", id: "system", label: "bootstrap" },
      now,
    );
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === "P2002") return false;
    throw error;
  }
}
