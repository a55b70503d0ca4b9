// Whom a new API key may act as, for the key dialog's "Acts as" picker: the rule createApiKey enforces
// (docs/authority.md#principals), said here without its server-only imports so the browser can offer only the people it
// would accept. key-owners.test.ts runs every role against createApiKey, so the two cannot drift apart.
import type { ApiScope } from "@/lib/platform/auth/api-keys";
import type { Role } from "@/lib/platform/auth/roles";

/** An operator or admin key acts as a person; an agent or metrics key acts as itself. */
export function actsAsPerson(scopes: readonly ApiScope[]): boolean {
  return scopes.includes("operator") || scopes.includes("admin");
}

/** The roles the key's person may have: a key can do no more than its person. Empty when the key names nobody. */
export function ownerRolesFor(scopes: readonly ApiScope[]): Role[] {
  if (scopes.includes("admin")) return ["admin"];
  if (scopes.includes("operator")) return ["operator", "admin"];
  return [];
}

export interface KeyOwnerCandidate {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** A disabled person cannot own a key; a locked one can (the lock only throttles their sign-in). */
  status: "active" | "locked" | "disabled";
}

/** The people the picker offers for these scopes, in the order given (the admin page lists users by email). */
export function keyOwnerChoices<U extends KeyOwnerCandidate>(users: readonly U[], scopes: readonly ApiScope[]): U[] {
  const roles = ownerRolesFor(scopes);
  return users.filter((user) => user.status !== "disabled" && roles.includes(user.role));
}

/** One line for the picker's hint, naming who fits. */
export function ownerHint(scopes: readonly ApiScope[]): string {
  return scopes.includes("admin")
    ? "An admin-scope key acts as an admin: it can do no more than its person, and stops working if they are disabled."
    : "The key approves, rejects and reconciles as this person (an operator or admin), and stops working if they are disabled.";
}
