// The signed-in person for pages, server actions and console routes: read from the session, role read fresh from the
// database.
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { ledger } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/ledger/actor";
import { authOptions } from "./auth-options";
import { signInPathForRequest } from "./requested-path";
import { ForbiddenError, requireRole, type Role } from "./roles";

export interface SessionUser {
  email: string;
  name: string;
  role: Role;
}

/**
 * The current user, or null. The role comes from the database so a demotion takes effect at once, not at token expiry.
 */
export async function currentUser(): Promise<SessionUser | null> {
  const session = await getServerSession(authOptions);
  const email = session?.user?.email?.toLowerCase();
  if (!email) return null;
  const user = await ledger().db.user.findUnique({
    where: { email },
    select: { email: true, name: true, role: true, disabledAt: true },
  });
  if (!user || user.disabledAt) return null;
  return { email: user.email, name: user.name, role: user.role as Role };
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

/** For server actions and console routes: throws instead of redirecting. */
export async function requireUser(role: Role): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) throw new UnauthenticatedError("Your session has ended; sign in again.");
  if (role !== "viewer") requireRole(user, role);
  return user;
}

export function userActor(user: SessionUser): Actor {
  return { type: "user", id: user.email, label: user.email, role: user.role };
}

export { ForbiddenError };
