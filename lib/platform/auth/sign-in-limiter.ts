// Sign-in throttling per account and per client address: rate-limiter-flexible's counters in the database (the
// RateLimiterFlexible table), so every instance of opledger counts the same attempts.
import { createHash } from "node:crypto";
import { RateLimiterPrisma, RateLimiterRes } from "rate-limiter-flexible";
import type { Prisma } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";

/** Five failures in a row lock the account (a successful sign-in or an admin's reset starts the count again). */
export const MAX_FAILED_SIGN_INS = 5;
export const LOCKOUT_MS = 15 * 60_000;
/** Failures "in a row" are forgotten after a day without a lockout, so counters of mistyped emails do not pile up. */
const ACCOUNT_WINDOW_S = 24 * 60 * 60;

/**
 * One address may fail this often in a quarter of an hour, across all accounts, before it is refused for the same
 * lockout time: enough for an office behind one address, too few to try one password on every account.
 */
export const MAX_FAILED_SIGN_INS_PER_ADDRESS = 100;
const ADDRESS_WINDOW_S = 15 * 60;

const ACCOUNT_PREFIX = "sign-in:account";
const ADDRESS_PREFIX = "sign-in:address";
/** The Prisma client's property for the RateLimiterFlexible model. */
const TABLE = "rateLimiterFlexible";
/** Expired counters are removed at most this often per process, an hour after they expired. */
const PURGE_EVERY_MS = 10 * 60_000;
const PURGE_AFTER_MS = 60 * 60_000;

interface Limiters {
  account: RateLimiterPrisma;
  address: RateLimiterPrisma;
  purgedAt: number;
}

const limitersByLedger = new WeakMap<Ledger, Limiters>();

function limitersFor(ledger: Ledger): Limiters {
  let limiters = limitersByLedger.get(ledger);
  if (!limiters) {
    // The library's own purge timer would outlive a closed ledger (tests open many); purgeExpired does that job.
    const common = { storeClient: ledger.db, tableName: TABLE, clearExpiredByTimeout: false };
    limiters = {
      account: new RateLimiterPrisma({
        ...common,
        keyPrefix: ACCOUNT_PREFIX,
        points: MAX_FAILED_SIGN_INS,
        duration: ACCOUNT_WINDOW_S,
        // Normally the lock is set by lockAccount at the fifth failure; this covers an attempt that crashed before.
        blockDuration: LOCKOUT_MS / 1000,
      }),
      address: new RateLimiterPrisma({
        ...common,
        keyPrefix: ADDRESS_PREFIX,
        points: MAX_FAILED_SIGN_INS_PER_ADDRESS,
        duration: ADDRESS_WINDOW_S,
        blockDuration: LOCKOUT_MS / 1000,
      }),
      purgedAt: 0,
    };
    limitersByLedger.set(ledger, limiters);
  }
  return limiters;
}

/** The account's counter key: a hash, so emails people mistype are not kept in clear, and every key is as long. */
function accountKey(email: string): string {
  return createHash("sha256").update(email).digest("base64url");
}

/** The row key the library stores for an account (its prefix, a colon, the key). */
function accountRowKey(email: string): string {
  return `${ACCOUNT_PREFIX}:${accountKey(email)}`;
}

function isRefusal(outcome: unknown): outcome is RateLimiterRes {
  return outcome instanceof RateLimiterRes;
}

export type SignInAttempt =
  /** `failure` is the number this attempt gets if it fails: the fifth failure locks the account. */
  { allowed: true; failure: number } | { allowed: false };

/**
 * Counts one attempt against the account and then against the address, before the password is checked: each count
 * is one atomic increment in the database (INSERT ... ON CONFLICT DO UPDATE ... RETURNING), so of any number of
 * concurrent guesses only the first five are let through to a password check.
 */
export async function takeSignInAttempt(ledger: Ledger, email: string, address: string | null): Promise<SignInAttempt> {
  const limiters = limitersFor(ledger);
  await purgeExpired(ledger, limiters);
  let failure: number;
  try {
    failure = (await limiters.account.consume(accountKey(email))).consumedPoints;
  } catch (outcome) {
    if (isRefusal(outcome)) return { allowed: false };
    throw outcome;
  }
  if (address !== null) {
    try {
      await limiters.address.consume(address);
    } catch (outcome) {
      if (isRefusal(outcome)) return { allowed: false };
      throw outcome;
    }
  }
  return { allowed: true, failure };
}

/** The fifth failure: the account is refused for LOCKOUT_MS from now, whatever password comes next. */
export async function lockAccount(ledger: Ledger, email: string): Promise<void> {
  await limitersFor(ledger).account.block(accountKey(email), LOCKOUT_MS / 1000);
}

/** A successful sign-in: the account's failures start again from zero and the attempt does not count for the address. */
export async function signInSucceeded(ledger: Ledger, email: string, address: string | null): Promise<void> {
  const limiters = limitersFor(ledger);
  await limiters.account.delete(accountKey(email));
  if (address !== null) await limiters.address.reward(address, 1);
}

/** Lifts an account's lockout and forgets its failures, inside the admin's transaction (password reset, enabling). */
export async function clearAccountThrottle(tx: Prisma.TransactionClient, email: string): Promise<void> {
  await tx.rateLimiterFlexible.deleteMany({ where: { key: accountRowKey(email) } });
}

/** Whether the account is refused right now (for tests and the admin's view of a lockout). */
export async function accountLocked(ledger: Ledger, email: string): Promise<boolean> {
  const state = await limitersFor(ledger).account.get(accountKey(email));
  return state !== null && state.consumedPoints > MAX_FAILED_SIGN_INS;
}

async function purgeExpired(ledger: Ledger, limiters: Limiters): Promise<void> {
  const now = Date.now();
  if (now - limiters.purgedAt < PURGE_EVERY_MS) return;
  limiters.purgedAt = now;
  await ledger.db.rateLimiterFlexible.deleteMany({
    where: { key: { startsWith: "sign-in:" }, expire: { lt: new Date(now - PURGE_AFTER_MS) } },
  });
}
