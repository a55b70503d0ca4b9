// Password sign-in on a real database: lockout after five failures for known and unknown emails alike, one hash
// verification on every path, the per-address limit, and an admin's reset or enabling lifting a lockout.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { insertUser } from "@/tests/helpers/console-users";
import type { Actor } from "@/lib/ledger/actor";
import { disableUser, enableUser, resetUserPassword, userStatus } from "./admin";
import * as passwords from "./passwords";
import { accountLocked, MAX_FAILED_SIGN_INS_PER_ADDRESS } from "./sign-in-limiter";
import { LOCKOUT_MS, MAX_FAILED_SIGN_INS, signInWithPassword } from "./sign-in";

vi.mock("./passwords", async (importOriginal) => {
  const actual = await importOriginal<typeof passwords>();
  return { ...actual, verifyPassword: vi.fn(actual.verifyPassword) };
});
const verifyPassword = vi.mocked(passwords.verifyPassword);
const realVerifyPassword = (await vi.importActual<typeof passwords>("./passwords")).verifyPassword;

const PASSWORD = "correct horse battery staple";
const NOW = new Date("2026-12-01T12:00:00Z");
const ADDRESS = "203.0.113.7";

let t: TestDb;
let admin: Actor;
let userId: string;

beforeEach(async () => {
  t = await createTestDb();
  admin = (await insertUser(t.db, { email: "admin@example.test", role: "admin", password: PASSWORD })).actor;
  userId = (await insertUser(t.db, { email: "ada@example.test", name: "Ada", role: "operator", password: PASSWORD }))
    .id;
  verifyPassword.mockReset();
  verifyPassword.mockImplementation(realVerifyPassword);
});
afterEach(async () => t.close());

function signIn(email: string, password: string, clientAddress: string | null = ADDRESS) {
  return signInWithPassword(t.ledger, { email, password, clientAddress }, NOW);
}

/** Verifications against a real user's hash (not the unmatchable stand-in). */
function realVerifications(): number {
  return verifyPassword.mock.calls.filter(([, hash]) => hash !== passwords.UNMATCHABLE_HASH).length;
}

// The stand-in hash has the production cost: an unknown email costs what a real account does.
describe("signInWithPassword", { timeout: 60_000 }, () => {
  it("signs in with the right password, any case and spacing of the email, and returns the session version", async () => {
    const result = await signIn("  ADA@example.test ", PASSWORD);
    expect(result).toEqual({
      ok: true,
      user: { id: userId, email: "ada@example.test", name: "Ada", role: "operator", sessionVersion: 0 },
    });
  });

  it("locks a known account at the fifth wrong password, then refuses even the right one", async () => {
    const answers = [];
    for (let i = 1; i <= MAX_FAILED_SIGN_INS; i++) answers.push((await signIn("ada@example.test", `wrong ${i}`)).ok);
    expect(answers).toEqual([false, false, false, false, false]);
    expect(await signIn("ada@example.test", `wrong again`)).toEqual({ ok: false, reason: "locked" });
    expect(await signIn("ada@example.test", PASSWORD)).toEqual({ ok: false, reason: "locked" });

    const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
    expect(user.lockedUntil).toEqual(new Date(NOW.getTime() + LOCKOUT_MS));
    expect(userStatus(user, NOW)).toBe("locked");
    expect(await accountLocked(t.ledger, "ada@example.test")).toBe(true);
    const audit = await t.db.auditEvent.findMany({ where: { subjectId: "ada@example.test" }, orderBy: { seq: "asc" } });
    expect(audit.map((e) => e.action).slice(-MAX_FAILED_SIGN_INS)).toEqual([
      "user.sign_in_failed",
      "user.sign_in_failed",
      "user.sign_in_failed",
      "user.sign_in_failed",
      "user.locked_out",
    ]);
  });

  it("answers an unknown email exactly as a known one: invalid four times, then locked", async () => {
    const known: unknown[] = [];
    const unknown: unknown[] = [];
    for (let i = 1; i <= MAX_FAILED_SIGN_INS + 1; i++) {
      known.push(await signIn("ada@example.test", `wrong ${i}`));
      unknown.push(await signIn("nobody@example.test", `wrong ${i}`));
    }
    expect(unknown).toEqual(known);
    expect(known.map((r) => (r as { reason: string }).reason)).toEqual([
      "invalid",
      "invalid",
      "invalid",
      "invalid",
      "locked",
      "locked",
    ]);
    // The unknown email is audited by a hash, so a password typed into the email field is never kept.
    const audit = await t.db.auditEvent.findMany({ where: { subjectId: { startsWith: "unknown:" } } });
    expect(audit).toHaveLength(MAX_FAILED_SIGN_INS);
    expect(JSON.stringify(audit)).not.toContain("nobody@example.test");
  });

  it("runs exactly one hash verification on every path, and the real hash only where a success could follow", async () => {
    const gone = await insertUser(t.db, { email: "gone@example.test", role: "viewer", password: PASSWORD });
    await disableUser(t.ledger, { userId: gone.id, reason: "left" }, admin, NOW);
    verifyPassword.mockClear();

    const paths: [string, () => Promise<unknown>, number][] = [
      ["wrong password", () => signIn("ada@example.test", "wrong"), 1],
      ["unknown email", () => signIn("nobody@example.test", PASSWORD), 0],
      ["disabled account, right password", () => signIn("gone@example.test", PASSWORD), 0],
      ["password over 256 characters", () => signIn("ada@example.test", "x".repeat(257)), 0],
      ["email over 320 characters", () => signIn(`${"x".repeat(320)}@example.test`, PASSWORD), 0],
    ];
    for (const [name, attempt, real] of paths) {
      verifyPassword.mockClear();
      expect(await attempt(), name).toEqual({ ok: false, reason: "invalid" });
      expect(verifyPassword.mock.calls.length, name).toBe(1);
      expect(realVerifications(), name).toBe(real);
      expect(verifyPassword.mock.calls[0]?.[0].length, name).toBeLessThanOrEqual(passwords.MAX_PASSWORD_LENGTH);
    }

    for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) await signIn("nobody@example.test", "wrong");
    verifyPassword.mockClear();
    expect(await signIn("nobody@example.test", "wrong")).toEqual({ ok: false, reason: "locked" });
    expect(verifyPassword.mock.calls.length).toBe(1);
    expect(realVerifications()).toBe(0);
  });

  it("refuses a disabled account's right password with the same answer as a wrong one", async () => {
    await disableUser(t.ledger, { userId, reason: "left" }, admin, NOW);
    expect(await signIn("ada@example.test", PASSWORD)).toEqual({ ok: false, reason: "invalid" });
  });

  it("counts failures in a row: a successful sign-in starts the count again", async () => {
    for (let i = 0; i < MAX_FAILED_SIGN_INS - 1; i++) await signIn("ada@example.test", "wrong");
    expect((await signIn("ada@example.test", PASSWORD)).ok).toBe(true);
    for (let i = 0; i < MAX_FAILED_SIGN_INS - 1; i++) {
      expect(await signIn("ada@example.test", "wrong")).toEqual({ ok: false, reason: "invalid" });
    }
    expect((await signIn("ada@example.test", PASSWORD)).ok).toBe(true);
  });

  it("lifts a lockout when an admin resets the password or enables the user", async () => {
    for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) await signIn("ada@example.test", "wrong");
    await resetUserPassword(t.ledger, { userId, password: "a brand new passphrase" }, admin, NOW);
    expect(userStatus(await t.db.user.findUniqueOrThrow({ where: { id: userId } }), NOW)).toBe("active");
    expect((await signIn("ada@example.test", "a brand new passphrase")).ok).toBe(true);

    for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) await signIn("ada@example.test", "wrong");
    await disableUser(t.ledger, { userId, reason: "locked out twice" }, admin, NOW);
    await enableUser(t.ledger, { userId }, admin, NOW);
    expect((await signIn("ada@example.test", "a brand new passphrase")).ok).toBe(true);
  });

  it("refuses an address after its allowance of failures across accounts, while other addresses go on", async () => {
    // Spread over many accounts, as a password-spraying client would, so no account reaches its own limit. The
    // hashing is left out here: it costs a hundred verifications and the address limit does not depend on it.
    verifyPassword.mockResolvedValue(false);
    for (let i = 0; i < MAX_FAILED_SIGN_INS_PER_ADDRESS; i++) {
      const result = await signIn(`sprayed-${i % 40}@example.test`, "Summer2026!");
      expect(result, `failure ${i + 1}`).toEqual({ ok: false, reason: "invalid" });
    }
    verifyPassword.mockImplementation(realVerifyPassword);
    expect(await signIn("ada@example.test", PASSWORD)).toEqual({ ok: false, reason: "locked" });
    expect((await signIn("ada@example.test", PASSWORD, "198.51.100.9")).ok).toBe(true);
    // Without a trusted address only the per-account limit applies.
    expect((await signIn("ada@example.test", PASSWORD, null)).ok).toBe(true);
  });

  it("does not count a successful sign-in against the address", async () => {
    await signIn("ada@example.test", "wrong");
    expect((await signIn("ada@example.test", PASSWORD)).ok).toBe(true);
    const counter = await t.db.rateLimiterFlexible.findUniqueOrThrow({ where: { key: `sign-in:address:${ADDRESS}` } });
    expect(counter.points).toBe(1);
  });
});
