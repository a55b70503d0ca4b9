// The key dialog offers exactly the people createApiKey accepts: every role and status against every person scope.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type ApiScope } from "@/lib/platform/auth/api-keys";
import { ROLES, type Role } from "@/lib/platform/auth/roles";
import { LedgerError } from "@/lib/ledger/errors";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { insertUser, type InsertedUser } from "@/tests/helpers/console-users";
import { actsAsPerson, keyOwnerChoices, ownerRolesFor, type KeyOwnerCandidate } from "./key-owners";

const SCOPE_SETS: ApiScope[][] = [
  ["agent"],
  ["metrics"],
  ["operator"],
  ["admin"],
  ["agent", "operator"],
  ["operator", "admin"],
  ["agent", "operator", "admin", "metrics"],
];

describe("ownerRolesFor", () => {
  it.each([
    [["agent"], []],
    [["metrics"], []],
    [["operator"], ["operator", "admin"]],
    [["admin"], ["admin"]],
    [["operator", "admin"], ["admin"]],
  ] as [ApiScope[], Role[]][])("%j may belong to %j", (scopes, roles) => {
    expect(ownerRolesFor(scopes)).toEqual(roles);
    expect(actsAsPerson(scopes)).toBe(roles.length > 0);
  });
});

describe("keyOwnerChoices agrees with createApiKey", () => {
  let t: TestDb;
  let admin: InsertedUser;
  const people: (KeyOwnerCandidate & { inserted: InsertedUser })[] = [];

  beforeAll(async () => {
    t = await createTestDb();
    admin = await insertUser(t.db, { email: "root@example.com", role: "admin", password: "x".repeat(16) });
    for (const role of ROLES) {
      for (const status of ["active", "disabled"] as const) {
        const inserted = await insertUser(t.db, {
          email: `${role}-${status}@example.com`,
          role,
          password: "x".repeat(16),
        });
        if (status === "disabled")
          await t.db.user.update({ where: { id: inserted.id }, data: { disabledAt: new Date() } });
        people.push({ id: inserted.id, email: inserted.email, name: inserted.email, role, status, inserted });
      }
    }
  });
  afterAll(async () => t.close());

  it.each(SCOPE_SETS.filter(actsAsPerson).map((scopes) => ({ scopes })))("for scopes $scopes", async ({ scopes }) => {
    const offered = new Set(keyOwnerChoices(people, scopes).map((p) => p.id));
    for (const person of people) {
      let accepted: boolean;
      try {
        await createApiKey(
          t.ledger,
          { name: `key for ${person.email}`, scopes, ownerUserId: person.id },
          admin.actor,
          new Date(),
        );
        accepted = true;
      } catch (error) {
        if (!(error instanceof LedgerError) || !error.extra.errors?.ownerUserId) throw error;
        accepted = false;
      }
      expect(offered.has(person.id), `${person.role} ${person.status} for ${scopes.join(",")}`).toBe(accepted);
    }
  });

  it("offers nobody for a key that acts as itself, and createApiKey asks for nobody", async () => {
    for (const scopes of SCOPE_SETS.filter((s) => !actsAsPerson(s))) {
      expect(keyOwnerChoices(people, scopes)).toEqual([]);
      await expect(createApiKey(t.ledger, { name: "agent", scopes }, admin.actor, new Date())).resolves.toBeDefined();
    }
  });
});
