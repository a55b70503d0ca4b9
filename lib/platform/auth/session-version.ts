// Session versions: a session token carries its user's id and session version from sign-in; raising the version (a
// password reset, disabling, a role change, a sign-out) ends every session issued before, at its next request.
import type { Ledger } from "@/lib/ledger/ledger";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { ROLES, type Role } from "./roles";

/** What a session token must carry to be accepted. */
export interface SessionClaims {
  userId: string;
  sessionVersion: number;
}

/** The claims of a decoded token or session, or null when they are missing (a token from before session versions). */
export function sessionClaimsOf(
  carrier: { userId?: unknown; sessionVersion?: unknown } | null | undefined,
): SessionClaims | null {
  const userId = carrier?.userId;
  const sessionVersion = carrier?.sessionVersion;
  if (typeof userId !== "string" || userId.length === 0) return null;
  if (typeof sessionVersion !== "number" || !Number.isInteger(sessionVersion)) return null;
  return { userId, sessionVersion };
}

/**
 * A session is current only with exactly the user's version: older was ended; newer cannot have been issued, so it is
 * refused as well.
 */
export function isCurrentSession(claims: SessionClaims, user: { sessionVersion: number }): boolean {
  return claims.sessionVersion === user.sessionVersion;
}

/** The person a session belongs to, read fresh. */
export interface SessionPerson {
  id: string;
  email: string;
  name: string;
  role: Role;
}

/**
 * The person behind a session's claims, or null when the session has ended: no claims (a token from before session
 * versions), the user gone or disabled, or another version than the user's. Every reader of a session calls it:
 * currentUser (pages, actions, console routes) and next-auth's own session endpoint (auth-options.ts).
 */
export async function sessionPerson(ledger: Ledger, claims: SessionClaims | null): Promise<SessionPerson | null> {
  if (!claims) return null;
  const user = await ledger.db.user.findUnique({
    where: { id: claims.userId },
    select: { id: true, email: true, name: true, role: true, disabledAt: true, sessionVersion: true },
  });
  if (!user || user.disabledAt || !isCurrentSession(claims, user)) return null;
  return { id: user.id, email: user.email, name: user.name, role: asRole(user.role) };
}

/** The Prisma update that ends every session of the user it is applied to; put it in the change's own write. */
export const END_SESSIONS = { sessionVersion: { increment: 1 } } as const;

function asRole(value: string): Role {
  return (ROLES as readonly string[]).includes(value) ? (value as Role) : "viewer";
}

/**
 * Signing out ends every session of the person, not only this browser's: the version is raised, audited as the
 * person's own act. Only a current token may do it, so a stolen token that was already ended cannot sign the person
 * out again and again. Returns whether the sessions were ended.
 */
export async function endSessionsAtSignOut(ledger: Ledger, claims: SessionClaims, now: Date): Promise<boolean> {
  return auditedTransaction(ledger, async (tx, audit) => {
    const user = await tx.user.findUnique({
      where: { id: claims.userId },
      select: { id: true, email: true, role: true, sessionVersion: true },
    });
    if (!user || !isCurrentSession(claims, user)) return false;
    const raised = await tx.user.updateMany({
      where: { id: user.id, sessionVersion: claims.sessionVersion },
      data: END_SESSIONS,
    });
    if (raised.count !== 1) return false;
    audit([
      {
        subjectType: "user",
        subjectId: user.email,
        actor: { type: "user", id: user.id, label: user.email, role: asRole(user.role) },
        action: "user.signed_out",
        reason: "signed out: every session of this person has ended",
        at: now,
      },
    ]);
    return true;
  });
}
