// Roles and scopes, and the named permission checks every action and handler calls.
import type { ApiScope } from "./api-keys";

export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export class ForbiddenError extends Error {
  override name = "ForbiddenError";
}

export function hasRole(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export function requireRole(session: { role: Role } | null, needed: Role): void {
  if (!session || !hasRole(session.role, needed)) {
    throw new ForbiddenError(`This needs the ${needed} role.`);
  }
}

/** An admin key may do everything; otherwise the key needs one of the named scopes. */
export function requireScope(scopes: readonly ApiScope[], ...anyOf: ApiScope[]): void {
  if (!scopes.includes("admin") && !anyOf.some((s) => scopes.includes(s))) {
    throw new ForbiddenError(`This API key needs the ${anyOf.join(" or ")} scope.`);
  }
}
