// The signed-in person of a test of console actions and routes: lib/platform/auth/session's requireUser replaced by one that
// answers the test's `session.user` (none: signed out), refusing a role too low as the real one does.
import { ForbiddenError, type Role } from "@/lib/platform/auth/roles";
import type * as SessionModule from "@/lib/platform/auth/session";
import type { SessionUser } from "@/lib/platform/auth/session";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** The module to hand vi.mock("@/lib/platform/auth/session", ...), given the real one. */
export function mockedSession(
  actual: typeof SessionModule,
  session: { user: SessionUser | null },
): typeof SessionModule {
  return {
    ...actual,
    requireUser: (role: Role) => {
      if (!session.user) return Promise.reject(new actual.UnauthenticatedError("signed out"));
      if (RANK[session.user.role] < RANK[role])
        return Promise.reject(new ForbiddenError(`This needs the ${role} role.`));
      return Promise.resolve(session.user);
    },
  };
}

/** A signed-in person of this role, named after it. */
export function personWithRole(role: Role): SessionUser {
  return { id: `${role}-1`, email: `${role}@example.test`, name: role, role };
}
