// Fifty concurrent wrong-password guesses against one account, sent through two ledger handles on one database (two
// instances of opledger): the lockout holds at its limit, so exactly five guesses reach a password check.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as passwords from "@/lib/platform/auth/passwords";
import { accountLocked } from "@/lib/platform/auth/sign-in-limiter";
import { MAX_FAILED_SIGN_INS, signInWithPassword, type SignInResult } from "@/lib/platform/auth/sign-in";
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { insertUser } from "./helpers/console-users";
import { createTestDb, type TestDb } from "./helpers/test-db";

vi.mock("@/lib/platform/auth/passwords", async (importOriginal) => {
  const actual = await importOriginal<typeof passwords>();
  return { ...actual, verifyPassword: vi.fn(actual.verifyPassword) };
});
const verifyPassword = vi.mocked(passwords.verifyPassword);
const realVerifyPassword = (await vi.importActual<typeof passwords>("@/lib/platform/auth/passwords")).verifyPassword;

const GUESSES = 50;
const PASSWORD = "correct horse battery staple";
const NOW = new Date("2026-12-01T12:00:00Z");

let t: TestDb;
let second: Ledger;

beforeEach(async () => {
  t = await createTestDb();
  second = openLedger(t.url, { poolSize: 5 });
  if (t.engine === "sqlite") await applySqliteSettings(second.db);
  await insertUser(t.db, { email: "target@example.test", role: "operator", password: PASSWORD });
  verifyPassword.mockReset();
  // The stand-in check costs production's scrypt; counting it is what matters here, so it answers at once.
  verifyPassword.mockImplementation((password, hash) =>
    hash === passwords.UNMATCHABLE_HASH ? Promise.resolve(false) : realVerifyPassword(password, hash),
  );
});
afterEach(async () => {
  await second.close();
  await t.close();
});

/** Verifications against the account's real hash, as opposed to the unmatchable stand-in. */
function realVerifications(): number {
  return verifyPassword.mock.calls.filter(([, hash]) => hash !== passwords.UNMATCHABLE_HASH).length;
}

async function guessAtOnce(email: string): Promise<SignInResult[]> {
  return Promise.all(
    Array.from({ length: GUESSES }, (_, i) =>
      signInWithPassword(
        i % 2 === 0 ? t.ledger : second,
        // Two client addresses, so the per-address limit (a hundred) is not what stops them.
        { email, password: `guess number ${i}`, clientAddress: `198.51.100.${i % 2}` },
        NOW,
      ),
    ),
  );
}

function tally(results: SignInResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const key = result.ok ? "ok" : result.reason;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe(`${GUESSES} concurrent wrong guesses`, { timeout: 120_000 }, () => {
  it("against a known account: exactly five are checked against its password, then it is locked", async () => {
    const results = await guessAtOnce("target@example.test");

    expect(realVerifications()).toBe(MAX_FAILED_SIGN_INS);
    // Every guess cost one verification, checked or not.
    expect(verifyPassword.mock.calls).toHaveLength(GUESSES);
    expect(tally(results)).toEqual({ invalid: MAX_FAILED_SIGN_INS - 1, locked: GUESSES - MAX_FAILED_SIGN_INS + 1 });
    const audit = await t.db.auditEvent.findMany({ where: { subjectId: "target@example.test" } });
    expect(audit.map((e) => e.action).sort()).toEqual([
      "user.locked_out",
      "user.sign_in_failed",
      "user.sign_in_failed",
      "user.sign_in_failed",
      "user.sign_in_failed",
    ]);
    const user = await t.db.user.findUniqueOrThrow({ where: { email: "target@example.test" } });
    expect(user.lockedUntil?.getTime()).toBeGreaterThan(NOW.getTime());

    // The lock holds for the right password too, on either instance.
    verifyPassword.mockClear();
    const retry = { email: "target@example.test", password: PASSWORD, clientAddress: "198.51.100.0" };
    expect(await signInWithPassword(second, retry, NOW)).toEqual({ ok: false, reason: "locked" });
    expect(await signInWithPassword(t.ledger, retry, NOW)).toEqual({ ok: false, reason: "locked" });
    expect(realVerifications()).toBe(0);
  });

  it("against an unknown email: the same answers, so the two cannot be told apart", async () => {
    const results = await guessAtOnce("nobody@example.test");
    expect(tally(results)).toEqual({ invalid: MAX_FAILED_SIGN_INS - 1, locked: GUESSES - MAX_FAILED_SIGN_INS + 1 });
    expect(verifyPassword.mock.calls).toHaveLength(GUESSES);
    expect(await accountLocked(second, "nobody@example.test")).toBe(true);
  });
});
