// The signed-in person for pages, server actions and console routes: the session token names the user and its session
// version; the user, their role and their current version are read fresh from the database.
import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { ledger } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/ledger/actor";
import { authOptions } from "./auth-options";
import { signInPathForRequest } from "./requested-path";
import { sessionClaimsOf, sessionPerson, type SessionPerson } from "./session-version";
import { ForbiddenError, requireRole, type Role } from "./roles";
import { sentFromAnotherSite } from "./same-site";

export type SessionUser = SessionPerson;

/**
 * The current user, or null. The user is read fresh from the database on every request, so a demotion takes effect at
 * once, not at token expiry; and a token whose session version is not the user's (a password reset, disabling, a role
 * change or a sign-out since it was issued) is refused.
 */
export async function currentUser(): Promise<SessionUser | null> {
  return sessionPerson(ledger(), sessionClaimsOf(await getServerSession(authOptions)));
}

/** For pages: the signed-in user with at least `role`, or a redirect to sign-in that comes back to this page. */
export async function requirePageUser(role: Role = "viewer"): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(await signInPathForRequest());
  requireRole(user, role);
  return user;
}

export class UnauthenticatedError extends Error {
  override name = "UnauthenticatedError";
}

/** A server action sent from another site: refused before the session is read (proxy.ts answered it 403 already). */
export class CrossSiteError extends Error {
  override name = "CrossSiteError";
}

/**
 * For server actions and console routes: throws instead of redirecting. A server action (a POST with Next-Action)
 * sent from another site is refused first, whatever its cookie (same-site.ts: Sec-Fetch-Site and Origin).
 */
export async function requireUser(role: Role): Promise<SessionUser> {
  const request = await headers();
  if (request.has("next-action") && sentFromAnotherSite("POST", request)) {
    throw new CrossSiteError(
      "This request came from another site; the console only accepts changes from its own pages.",
    );
  }
  const user = await currentUser();
  if (!user) throw new UnauthenticatedError("Your session has ended; sign in again.");
  if (role !== "viewer") requireRole(user, role);
  return user;
}

export function userActor(user: SessionUser): Actor {
  return { type: "user", id: user.id, label: user.email, role: user.role };
}

export { ForbiddenError };
