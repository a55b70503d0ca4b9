// Session versions on a real database: a password reset, disabling, a role change and a sign-out each raise the
// user's version in the same transaction as their audit record, so every token issued before is refused.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { insertUser, type InsertedUser } from "@/tests/helpers/console-users";
import { changeUserRole, disableUser, enableUser, resetUserPassword } from "./admin";
import { ForbiddenError } from "./roles";
import {
  endSessionsAtSignOut,
  isCurrentSession,
  sessionClaimsOf,
  sessionPerson,
  type SessionClaims,
} from "./session-version";

const NOW = new Date("2026-12-01T12:00:00Z");
const PASSWORD = "correct horse battery staple";

let t: TestDb;
let admin: InsertedUser;
let ada: InsertedUser;

beforeEach(async () => {
  t = await createTestDb();
  admin = await insertUser(t.db, { email: "admin@example.test", role: "admin", password: PASSWORD });
  ada = await insertUser(t.db, { email: "ada@example.test", role: "operator", password: PASSWORD });
});
afterEach(async () => t.close());

async function versionOf(id: string): Promise<number> {
  return (await t.db.user.findUniqueOrThrow({ where: { id } })).sessionVersion;
}

async function auditActions(email: string): Promise<string[]> {
  const events = await t.db.auditEvent.findMany({ where: { subjectId: email }, orderBy: { seq: "asc" } });
  return events.map((e) => e.action);
}

describe("sessionClaimsOf", () => {
  it.each([
    ["a current token", { userId: "u1", sessionVersion: 3 }, { userId: "u1", sessionVersion: 3 }],
    ["a token from before session versions", { email: "ada@example.test" }, null],
    ["no token", null, null],
    ["an empty user id", { userId: "", sessionVersion: 0 }, null],
    ["a version that is not a whole number", { userId: "u1", sessionVersion: 1.5 }, null],
    ["a version as text", { userId: "u1", sessionVersion: "1" }, null],
  ])("%s", (_, carrier, expected) => {
    expect(sessionClaimsOf(carrier as Parameters<typeof sessionClaimsOf>[0])).toEqual(expected);
  });
});

describe("isCurrentSession", () => {
  it.each([
    [0, 0, true],
    [0, 1, false],
    [2, 1, false],
  ])("token version %i against the user's %i: %s", (token, user, expected) => {
    expect(isCurrentSession({ userId: "u1", sessionVersion: token }, { sessionVersion: user })).toBe(expected);
  });
});

describe("changes that end a user's sessions", () => {
  it("a password reset raises the version, with its audit record", async () => {
    await resetUserPassword(t.ledger, { userId: ada.id, password: "a brand new passphrase" }, admin.actor, NOW);
    expect(await versionOf(ada.id)).toBe(1);
    expect(await auditActions(ada.email)).toEqual(["user.password_reset"]);
  });

  it("disabling raises the version; enabling again does not bring old sessions back", async () => {
    await disableUser(t.ledger, { userId: ada.id, reason: "left" }, admin.actor, NOW);
    expect(await versionOf(ada.id)).toBe(1);
    await enableUser(t.ledger, { userId: ada.id }, admin.actor, NOW);
    expect(await versionOf(ada.id)).toBe(1);
    expect(await auditActions(ada.email)).toEqual(["user.disabled", "user.enabled"]);
  });

  it("a role change raises the version; asking for the role the user already has changes nothing", async () => {
    await changeUserRole(t.ledger, { userId: ada.id, role: "viewer" }, admin.actor, NOW);
    expect(await versionOf(ada.id)).toBe(1);
    await changeUserRole(t.ledger, { userId: ada.id, role: "viewer" }, admin.actor, NOW);
    expect(await versionOf(ada.id)).toBe(1);
    expect(await auditActions(ada.email)).toEqual(["user.role_changed"]);
  });

  it("an admin cannot disable or demote themselves, recognised by user id", async () => {
    await insertUser(t.db, { email: "other-admin@example.test", role: "admin", password: PASSWORD });
    await expect(disableUser(t.ledger, { userId: admin.id, reason: "oops" }, admin.actor, NOW)).rejects.toThrow(
      ForbiddenError,
    );
    await expect(changeUserRole(t.ledger, { userId: admin.id, role: "viewer" }, admin.actor, NOW)).rejects.toThrow(
      ForbiddenError,
    );
    expect(await versionOf(admin.id)).toBe(0);
  });
});

describe("endSessionsAtSignOut", () => {
  it("signing out raises the version once, audited as the person's own act", async () => {
    const claims: SessionClaims = { userId: ada.id, sessionVersion: 0 };
    expect(await endSessionsAtSignOut(t.ledger, claims, NOW)).toBe(true);
    expect(await versionOf(ada.id)).toBe(1);
    const [event] = await t.db.auditEvent.findMany({ where: { subjectId: ada.email } });
    expect(event).toMatchObject({ action: "user.signed_out", actorType: "user", actorId: ada.id, createdAt: NOW });

    // The same (now ended) token signing out again changes nothing: a stolen old cookie cannot keep signing Ada out.
    expect(await endSessionsAtSignOut(t.ledger, claims, NOW)).toBe(false);
    expect(await versionOf(ada.id)).toBe(1);
    expect(await auditActions(ada.email)).toEqual(["user.signed_out"]);
  });

  it("a token of a user who no longer exists changes nothing", async () => {
    expect(await endSessionsAtSignOut(t.ledger, { userId: "no-such-user", sessionVersion: 0 }, NOW)).toBe(false);
  });
});

describe("sessionPerson: what every reader of a session gets", () => {
  it("names the person of a current session, and nobody once it has ended, is disabled or has no claims", async () => {
    const claims: SessionClaims = { userId: ada.id, sessionVersion: 0 };
    expect(await sessionPerson(t.ledger, claims)).toEqual({
      id: ada.id,
      email: ada.email,
      name: expect.any(String) as string,
      role: "operator",
    });
    expect(await sessionPerson(t.ledger, null)).toBeNull();
    await endSessionsAtSignOut(t.ledger, claims, NOW);
    expect(await sessionPerson(t.ledger, claims)).toBeNull();
    expect(await sessionPerson(t.ledger, { userId: ada.id, sessionVersion: 1 })).not.toBeNull();
    await disableUser(t.ledger, { userId: ada.id, reason: "left" }, admin.actor, NOW);
    expect(await sessionPerson(t.ledger, { userId: ada.id, sessionVersion: 2 })).toBeNull();
  });
});
