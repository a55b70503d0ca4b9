// Authenticating an API request by its bearer key, with bad keys throttled per client address. Keys are 256 bits, so
// guessing one is hopeless and the throttle is not what keeps keys safe: it answers a flood of bad keys (a client
// with a stale key in a loop, a scanner) with 429 and Retry-After, so such clients back off and the logs show one
// kind of answer per address. It never locks out a valid key: the key is checked first, and only a bad one counts.
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/lib/platform/config/env";
import type { ApiKey } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import { verifyApiKey, type KeyActor } from "./api-keys";
import { clientAddress } from "./client-address";

/** Bad keys one client address may present in BAD_KEY_WINDOW_S before its bad keys are answered 429. */
export const BAD_KEYS_PER_ADDRESS = 300;
const BAD_KEY_WINDOW_S = 60;
/** How long an address that went over stays throttled (for bad keys only). */
export const BAD_KEY_BLOCK_S = 60;

/**
 * Counted in this process's memory: every instance keeps its own count, which is enough to keep it quiet, and a
 * flood of bad keys costs no database write.
 */
const badKeys = new RateLimiterMemory({
  keyPrefix: "api:bad-key",
  points: BAD_KEYS_PER_ADDRESS,
  duration: BAD_KEY_WINDOW_S,
  blockDuration: BAD_KEY_BLOCK_S,
});

export type KeyAuthentication =
  | { ok: true; key: ApiKey; actor: KeyActor }
  | { ok: false; status: 401; detail: string }
  | { ok: false; status: 429; detail: string; retryAfterS: number };

/** A request's headers, as a Web Request's or a Node request's (lib/agent-plane/node-headers.ts) are read. */
export type HeaderLookup = Pick<Headers, "get">;

function bearer(headers: HeaderLookup): string | null {
  const header = headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Counts one bad key against `address`; the Retry-After in seconds once it is over, else null. */
async function throttled(address: string): Promise<number | null> {
  try {
    await badKeys.consume(address);
    return null;
  } catch (outcome) {
    if (outcome instanceof RateLimiterRes) return Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
    throw outcome;
  }
}

/**
 * The key a request presents as `Authorization: Bearer <key>` and the principal it acts as; or a 401 (no key, or a
 * key unknown, revoked or of a disabled person), or a 429 when this client address (X-Forwarded-For read past
 * OPLEDGER_TRUSTED_PROXIES, client-address.ts) presented more than BAD_KEYS_PER_ADDRESS bad keys in a minute.
 */
export async function authenticateApiKey(ledger: Ledger, headers: HeaderLookup, now: Date): Promise<KeyAuthentication> {
  const presented = bearer(headers);
  if (!presented) return { ok: false, status: 401, detail: "Send an API key as Authorization: Bearer <key>." };
  const verified = await verifyApiKey(ledger, presented, now);
  if (verified) return { ok: true, ...verified };
  const address = clientAddress(headers.get("x-forwarded-for"), env().OPLEDGER_TRUSTED_PROXIES);
  const retryAfterS = address === null ? null : await throttled(address);
  if (retryAfterS !== null) {
    return {
      ok: false,
      status: 429,
      retryAfterS,
      detail: `Too many unknown or revoked API keys from this address; try again in ${retryAfterS} s with a valid key.`,
    };
  }
  return { ok: false, status: 401, detail: "The API key is unknown or revoked, or its person is disabled." };
}
