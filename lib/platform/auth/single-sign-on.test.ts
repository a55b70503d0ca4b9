// Single sign-on on a real database: only a verified email is accepted, the first use binds the user to the issuer and
// subject (audited), and afterwards another subject with the same email is refused.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { insertUser, type InsertedUser } from "@/tests/helpers/console-users";
import { disableUser } from "./admin";
import { acceptSsoIdentity, ssoIdentityOf, ssoSessionClaims, type SsoIdentity } from "./single-sign-on";

const NOW = new Date("2026-12-01T12:00:00Z");
const ISSUER = "https://idp.example.test";

describe("ssoIdentityOf", () => {
  const claims = { iss: ISSUER, sub: "subject-1", email: "Ada@Example.test", email_verified: true };
  it.each([
    ["a verified email", claims, { issuer: ISSUER, subject: "subject-1", email: "ada@example.test" }],
    ["email_verified false", { ...claims, email_verified: false }, { refused: "email_not_verified" }],
    ["email_verified as the text true", { ...claims, email_verified: "true" }, { refused: "email_not_verified" }],
    ["no email_verified claim", { ...claims, email_verified: undefined }, { refused: "email_not_verified" }],
    ["no email", { ...claims, email: undefined }, { refused: "incomplete_identity" }],
    ["no subject", { ...claims, sub: "" }, { refused: "incomplete_identity" }],
    ["no issuer", { ...claims, iss: undefined }, { refused: "incomplete_identity" }],
    ["no profile at all", undefined, { refused: "incomplete_identity" }],
  ])("%s", (_, profile, expected) => {
    expect(ssoIdentityOf(profile)).toEqual(expected);
  });
});

describe("acceptSsoIdentity", () => {
  let t: TestDb;
  let ada: InsertedUser;
  const identity: SsoIdentity = { issuer: ISSUER, subject: "subject-1", email: "ada@example.test" };

  beforeEach(async () => {
    t = await createTestDb();
    ada = await insertUser(t.db, { email: "ada@example.test", role: "operator", password: "unused passphrase" });
  });
  afterEach(async () => t.close());

  const auditOf = (email: string) => t.db.auditEvent.findMany({ where: { subjectId: email }, orderBy: { seq: "asc" } });

  it("binds the user to the issuer and subject on first use, audited, and accepts the same identity again", async () => {
    expect(await acceptSsoIdentity(t.ledger, identity, NOW)).toEqual({ ok: true, userId: ada.id, sessionVersion: 0 });
    expect(await t.db.user.findUniqueOrThrow({ where: { id: ada.id } })).toMatchObject({
      ssoIssuer: ISSUER,
      ssoSubject: "subject-1",
    });
    const [bound] = await auditOf(ada.email);
    expect(bound).toMatchObject({ action: "user.sso_bound", actorType: "system" });
    expect(JSON.parse(bound?.data ?? "{}")).toEqual({ issuer: ISSUER, subject: "subject-1" });

    expect(await acceptSsoIdentity(t.ledger, identity, NOW)).toEqual({ ok: true, userId: ada.id, sessionVersion: 0 });
    expect(await auditOf(ada.email)).toHaveLength(1);
    expect(await ssoSessionClaims(t.ledger, identity)).toEqual({ userId: ada.id, sessionVersion: 0 });
  });

  it("refuses another subject, or another issuer, with the same email once the user is bound, and audits it", async () => {
    await acceptSsoIdentity(t.ledger, identity, NOW);
    expect(await acceptSsoIdentity(t.ledger, { ...identity, subject: "subject-2" }, NOW)).toEqual({
      ok: false,
      refused: "bound_to_another_identity",
    });
    expect(await acceptSsoIdentity(t.ledger, { ...identity, issuer: "https://evil.example.test" }, NOW)).toEqual({
      ok: false,
      refused: "bound_to_another_identity",
    });
    expect((await auditOf(ada.email)).map((e) => e.action)).toEqual([
      "user.sso_bound",
      "user.sso_refused",
      "user.sso_refused",
    ]);
    expect(await t.db.user.findUniqueOrThrow({ where: { id: ada.id } })).toMatchObject({ ssoSubject: "subject-1" });
  });

  it("refuses an identity already bound to another user", async () => {
    await acceptSsoIdentity(t.ledger, identity, NOW);
    await insertUser(t.db, { email: "bob@example.test", role: "viewer", password: "unused passphrase" });
    expect(await acceptSsoIdentity(t.ledger, { ...identity, email: "bob@example.test" }, NOW)).toEqual({
      ok: false,
      refused: "identity_bound_elsewhere",
    });
  });

  it("refuses an email with no console user, and a disabled user", async () => {
    expect(await acceptSsoIdentity(t.ledger, { ...identity, email: "nobody@example.test" }, NOW)).toEqual({
      ok: false,
      refused: "no_such_user",
    });
    const admin = await insertUser(t.db, { email: "admin@example.test", role: "admin", password: "unused passphrase" });
    await disableUser(t.ledger, { userId: ada.id, reason: "left" }, admin.actor, NOW);
    expect(await acceptSsoIdentity(t.ledger, identity, NOW)).toEqual({ ok: false, refused: "no_such_user" });
    expect(await ssoSessionClaims(t.ledger, identity)).toBeNull();
  });

  it("binds once when two first sign-ins with the same identity race", async () => {
    const [a, b] = await Promise.all([
      acceptSsoIdentity(t.ledger, identity, NOW),
      acceptSsoIdentity(t.ledger, identity, NOW),
    ]);
    expect(a).toEqual({ ok: true, userId: ada.id, sessionVersion: 0 });
    expect(b).toEqual({ ok: true, userId: ada.id, sessionVersion: 0 });
    expect((await auditOf(ada.email)).map((e) => e.action)).toEqual(["user.sso_bound"]);
  });
});
