// Single sign-on: an identity is accepted only with a verified email, and binds its console user to the issuer and
// subject on first use; after that only that same issuer and subject sign the user in.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/ledger/actor";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { WriteConflict } from "@/lib/ledger/store/types";
import type { SessionClaims } from "./session-version";

/** Who the identity provider says signed in: its issuer and subject name the person, the email finds their user. */
export interface SsoIdentity {
  issuer: string;
  subject: string;
  email: string;
}

export type SsoRefusal =
  /** No issuer, subject or email in the ID token. */
  | "incomplete_identity"
  /** `email_verified` is not exactly true: anyone may type any email into some providers. */
  | "email_not_verified"
  /** No enabled console user has this email: roles live in opledger, not in the identity provider. */
  | "no_such_user"
  /** The user is bound to another issuer or subject (the same email at the provider is not enough). */
  | "bound_to_another_identity"
  /** This issuer and subject are already bound to another user. */
  | "identity_bound_elsewhere";

export type SsoOutcome = ({ ok: true } & SessionClaims) | { ok: false; refused: SsoRefusal };

const SSO_ACTOR: Actor = { type: "system", id: "system", label: "single sign-on" };

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : null;
}

/**
 * The identity in an OIDC profile (the ID token's claims, which openid-client has checked against the issuer), or why
 * it cannot be accepted. `email_verified` must be the boolean true: a string "true" or a missing claim is refused.
 */
export function ssoIdentityOf(profile: unknown): SsoIdentity | { refused: SsoRefusal } {
  const claims = (profile ?? {}) as Record<string, unknown>;
  const issuer = text(claims.iss);
  const subject = text(claims.sub);
  const email = text(claims.email)?.toLowerCase() ?? null;
  if (!issuer || !subject || !email) return { refused: "incomplete_identity" };
  if (claims.email_verified !== true) return { refused: "email_not_verified" };
  return { issuer, subject, email };
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2002";
}

/**
 * Accepts an identity for the console user with its email: binds the user on first use (audited), then requires the
 * same issuer and subject; a mismatch is refused and audited. Returns the session claims for the token.
 */
export async function acceptSsoIdentity(ledger: Ledger, identity: SsoIdentity, now: Date): Promise<SsoOutcome> {
  try {
    return await auditedTransaction(ledger, async (tx, audit): Promise<SsoOutcome> => {
      const user = await tx.user.findUnique({
        where: { email: identity.email },
        select: { id: true, email: true, disabledAt: true, ssoIssuer: true, ssoSubject: true, sessionVersion: true },
      });
      if (!user || user.disabledAt) return { ok: false, refused: "no_such_user" };
      const claims = { userId: user.id, sessionVersion: user.sessionVersion };
      if (user.ssoIssuer !== null || user.ssoSubject !== null) {
        if (user.ssoIssuer === identity.issuer && user.ssoSubject === identity.subject) return { ok: true, ...claims };
        audit([
          {
            subjectType: "user",
            subjectId: user.email,
            actor: SSO_ACTOR,
            action: "user.sso_refused",
            reason: "single sign-on with an identity other than the one this user is bound to",
            data: { issuer: identity.issuer, subject: identity.subject },
            at: now,
          },
        ]);
        return { ok: false, refused: "bound_to_another_identity" };
      }
      const holder = await tx.user.findUnique({
        where: { ssoIssuer_ssoSubject: { ssoIssuer: identity.issuer, ssoSubject: identity.subject } },
        select: { id: true },
      });
      // Each statement of a READ COMMITTED transaction (PostgreSQL) sees the latest commit: a first sign-in racing
      // this one may have bound this very user between the read above and this one.
      if (holder?.id === user.id) return { ok: true, ...claims };
      if (holder) return { ok: false, refused: "identity_bound_elsewhere" };
      // Conditional: of two first sign-ins at once, one binds and the other finds the binding when it runs again.
      const bound = await tx.user.updateMany({
        where: { id: user.id, ssoIssuer: null, ssoSubject: null },
        data: { ssoIssuer: identity.issuer, ssoSubject: identity.subject },
      });
      if (bound.count !== 1) throw new WriteConflict();
      audit([
        {
          subjectType: "user",
          subjectId: user.email,
          actor: SSO_ACTOR,
          action: "user.sso_bound",
          reason: "first single sign-on: the user is bound to this issuer and subject",
          data: { issuer: identity.issuer, subject: identity.subject },
          at: now,
        },
      ]);
      return { ok: true, ...claims };
    });
  } catch (error) {
    // The identity was bound to another user between the check and the write.
    if (isUniqueViolation(error)) return { ok: false, refused: "identity_bound_elsewhere" };
    throw error;
  }
}

/** The session claims of the user bound to this identity (for the token, right after acceptSsoIdentity said yes). */
export async function ssoSessionClaims(ledger: Ledger, identity: SsoIdentity): Promise<SessionClaims | null> {
  const user = await ledger.db.user.findUnique({
    where: { ssoIssuer_ssoSubject: { ssoIssuer: identity.issuer, ssoSubject: identity.subject } },
    select: { id: true, disabledAt: true, sessionVersion: true },
  });
  return user && !user.disabledAt ? { userId: user.id, sessionVersion: user.sessionVersion } : null;
}
