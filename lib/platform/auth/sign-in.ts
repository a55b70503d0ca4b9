// Password sign-in: throttled per account and per client address before any password is checked, the same answer and
// the same work for an unknown, disabled or locked account as for a wrong password, and every failure audited.
import { createHash } from "node:crypto";
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/ledger/actor";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { MAX_PASSWORD_LENGTH, UNMATCHABLE_HASH, verifyPassword } from "./passwords";
import type { Role } from "./roles";
import { LOCKOUT_MS, MAX_FAILED_SIGN_INS, lockAccount, signInSucceeded, takeSignInAttempt } from "./sign-in-limiter";

export { LOCKOUT_MS, MAX_FAILED_SIGN_INS };

/** No address is longer (RFC 5321 allows 254 in practice); a longer one is treated as an unknown account. */
const MAX_EMAIL_LENGTH = 320;

/** Checked against UNMATCHABLE_HASH when there is no password worth hashing, so that path costs one verification. */
const STAND_IN_PASSWORD = "opledger stand-in password";

const SIGN_IN_ACTOR: Actor = { type: "system", id: "system", label: "sign-in" };

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Goes into the session token; a later raise ends the session. */
  sessionVersion: number;
}

/** "locked" when the account or the address has used up its attempts, for known and unknown accounts alike. */
export type SignInResult = { ok: true; user: SignedInUser } | { ok: false; reason: "invalid" | "locked" };

export interface SignInAttemptInput {
  email: string;
  password: string;
  /** From clientAddress(); null when there is no address to trust, and only the per-account limit applies. */
  clientAddress: string | null;
}

/** Why an attempt failed, for the audit trail only: the person signing in is told "invalid" whatever it was. */
type FailureCause = "unknown email" | "account disabled" | "password too long" | "wrong password";

function normalizedEmail(input: string): string {
  return input.trim().toLowerCase();
}

/** A mistyped or unknown email is audited by a short hash: correlatable, but a password typed into it is not kept. */
function unknownEmailSubject(email: string): string {
  return `unknown:${createHash("sha256").update(email).digest("base64url").slice(0, 16)}`;
}

export async function signInWithPassword(ledger: Ledger, input: SignInAttemptInput, now: Date): Promise<SignInResult> {
  const email = normalizedEmail(input.email);
  const attempt = await takeSignInAttempt(ledger, email, input.clientAddress);
  if (!attempt.allowed) {
    // Refused before any password check, and answered after the same hashing work as any other attempt.
    await verifyPassword(STAND_IN_PASSWORD, UNMATCHABLE_HASH);
    return { ok: false, reason: "locked" };
  }

  const user =
    email.length <= MAX_EMAIL_LENGTH
      ? await ledger.db.user.findUnique({
          where: { email },
          select: {
            id: true,
            email: true,
            name: true,
            role: true,
            passwordHash: true,
            sessionVersion: true,
            lockedUntil: true,
            disabledAt: true,
          },
        })
      : null;
  const tooLong = input.password.length > MAX_PASSWORD_LENGTH;
  const checkable = user !== null && user.disabledAt === null && !tooLong;
  // Exactly one verification on every path: the real hash only when a success could follow.
  const matches = await verifyPassword(
    tooLong ? STAND_IN_PASSWORD : input.password,
    checkable ? user.passwordHash : UNMATCHABLE_HASH,
  );

  if (checkable && matches) {
    await signInSucceeded(ledger, email, input.clientAddress);
    if (user.lockedUntil) await ledger.db.user.update({ where: { id: user.id }, data: { lockedUntil: null } });
    const { id, name, role, sessionVersion } = user;
    return { ok: true, user: { id, email: user.email, name, role: role as Role, sessionVersion } };
  }

  const cause: FailureCause = !user
    ? "unknown email"
    : user.disabledAt
      ? "account disabled"
      : tooLong
        ? "password too long"
        : "wrong password";
  const locked = attempt.failure >= MAX_FAILED_SIGN_INS;
  if (locked) await lockAccount(ledger, email);
  // The same writes whether the account exists or not, so the answer takes as long either way.
  await auditedTransaction(ledger, async (tx, audit) => {
    if (locked) {
      await tx.user.updateMany({ where: { email }, data: { lockedUntil: new Date(now.getTime() + LOCKOUT_MS) } });
    }
    audit([
      {
        subjectType: "user",
        subjectId: user ? user.email : unknownEmailSubject(email),
        actor: SIGN_IN_ACTOR,
        action: locked ? "user.locked_out" : "user.sign_in_failed",
        reason: locked
          ? `${MAX_FAILED_SIGN_INS} failed sign-ins in a row (last: ${cause}); locked for ${LOCKOUT_MS / 60_000} minutes`
          : `failed sign-in ${attempt.failure} of ${MAX_FAILED_SIGN_INS}: ${cause}`,
        data: input.clientAddress ? { clientAddress: input.clientAddress } : undefined,
        at: now,
      },
    ]);
  });
  return { ok: false, reason: locked ? "locked" : "invalid" };
}
