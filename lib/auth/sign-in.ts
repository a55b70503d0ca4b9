// Password sign-in with lockout: five failures in a row lock the account for fifteen minutes, and every failure is
// audited.
import type { Ledger } from "@/lib/ledger/ledger";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { verifyPassword } from "./passwords";
import type { Role } from "./roles";

export const MAX_FAILED_SIGN_INS = 5;
export const LOCKOUT_MS = 15 * 60_000;

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  role: Role;
}

export type SignInResult = { ok: true; user: SignedInUser } | { ok: false; reason: "invalid" | "locked" };

/** Verifies a password; unknown emails cost the same hashing time so they cannot be told apart by timing. */
export async function signInWithPassword(
  ledger: Ledger,
  emailInput: string,
  password: string,
  now: Date,
): Promise<SignInResult> {
  const email = emailInput.trim().toLowerCase();
  const user = await ledger.db.user.findUnique({ where: { email } });
  if (!user || user.disabledAt) {
    await verifyPassword(
      password,
      "scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    );
    return { ok: false, reason: "invalid" };
  }
  if (user.lockedUntil && user.lockedUntil.getTime() > now.getTime()) return { ok: false, reason: "locked" };
  if (await verifyPassword(password, user.passwordHash)) {
    if (user.failedSignIns > 0 || user.lockedUntil) {
      await ledger.db.user.update({ where: { id: user.id }, data: { failedSignIns: 0, lockedUntil: null } });
    }
    return { ok: true, user: { id: user.id, email: user.email, name: user.name, role: user.role as Role } };
  }
  const failures = user.failedSignIns + 1;
  const locked = failures >= MAX_FAILED_SIGN_INS;
  await auditedTransaction(ledger, async (tx, audit) => {
    await tx.user.update({
      where: { id: user.id },
      data: { failedSignIns: locked ? 0 : failures, lockedUntil: locked ? new Date(now.getTime() + LOCKOUT_MS) : null },
    });
    audit([
      {
        subjectType: "user",
        subjectId: email,
        actor: { type: "system", id: "system", label: "sign-in" },
        action: locked ? "user.locked_out" : "user.sign_in_failed",
        reason: locked
          ? `${MAX_FAILED_SIGN_INS} failed sign-ins in a row; locked for ${LOCKOUT_MS / 60_000} minutes`
          : `failed sign-in ${failures} of ${MAX_FAILED_SIGN_INS}`,
        at: now,
      },
    ]);
  });
  return { ok: false, reason: locked ? "locked" : "invalid" };
}
