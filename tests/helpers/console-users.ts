// Console users for sign-in tests, inserted with a cheap scrypt cost: verifyPassword reads the cost from the stored
// hash, so sign-in behaves exactly as with hashPassword's cost, only without its 50-600 ms per check.
import { randomBytes, scryptSync } from "node:crypto";
import type { Db } from "@/lib/platform/db/prisma";
import type { Actor } from "@/lib/ledger/actor";
import { newId } from "@/lib/ledger/ids";
import type { Role } from "@/lib/platform/auth/roles";

const CHEAP = { N: 1024, r: 8, p: 1 };

/** A hash in passwords.ts's format ("scrypt$N$r$p$salt$hash"), at a cost low enough for tests. */
export function cheapPasswordHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFKC"), salt, 32, CHEAP);
  return ["scrypt", CHEAP.N, CHEAP.r, CHEAP.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export interface InsertedUser {
  id: string;
  email: string;
  role: Role;
  /** The actor for this user, as userActor() builds it for a signed-in person. */
  actor: Actor;
}

export async function insertUser(
  db: Db,
  input: { email: string; role: Role; password: string; name?: string },
): Promise<InsertedUser> {
  const id = newId();
  const email = input.email.toLowerCase();
  await db.user.create({
    data: { id, email, name: input.name ?? email, role: input.role, passwordHash: cheapPasswordHash(input.password) },
  });
  return { id, email, role: input.role, actor: { type: "user", id, label: email, role: input.role } };
}
