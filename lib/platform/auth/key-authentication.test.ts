// Bad API keys throttled per client address on a real database: past the limit an address's bad keys get 429 with a
// Retry-After, a valid key from that very address still works, and other addresses are not touched.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/ledger/actor";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { createApiKey, generateApiKey } from "./api-keys";
import { authenticateApiKey, BAD_KEY_BLOCK_S, BAD_KEYS_PER_ADDRESS } from "./key-authentication";

const system: Actor = { type: "system", id: "system", label: "test" };
const NOW = new Date("2026-12-06T12:00:00Z");

let t: TestDb;
let valid: string;
beforeEach(async () => {
  t = await createTestDb();
  valid = (await createApiKey(t.ledger, { name: "agent", scopes: ["agent"] }, system, NOW)).key;
});
afterEach(async () => t.close());

/** Documentation-range addresses, one per use: the counts live in this process's memory for a minute. */
const FLOOD = "198.51.100.1";
const OTHER = "198.51.100.2";
const QUIET = "198.51.100.3";

function call(key: string | null, from: string | null): Headers {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (from) headers["x-forwarded-for"] = from;
  return new Headers(headers);
}

describe("authenticateApiKey", () => {
  it("answers 429 with Retry-After to an address past the limit, and still lets a valid key through from it", async () => {
    const flood = FLOOD;
    for (let i = 0; i < BAD_KEYS_PER_ADDRESS; i++) {
      const answer = await authenticateApiKey(t.ledger, call(generateApiKey(), flood), NOW);
      expect(answer).toMatchObject({ ok: false, status: 401 });
    }
    const over = await authenticateApiKey(t.ledger, call(generateApiKey(), flood), NOW);
    expect(over).toMatchObject({ ok: false, status: 429 });
    expect(over.ok === false && over.status === 429 && over.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(over.ok === false && over.status === 429 && over.retryAfterS).toBeLessThanOrEqual(BAD_KEY_BLOCK_S);

    const good = await authenticateApiKey(t.ledger, call(valid, flood), NOW);
    expect(good).toMatchObject({ ok: true, actor: { type: "api_key", scopes: ["agent"] } });
    // A valid key does not lift the throttle for bad ones, and does not count against the address either.
    expect(await authenticateApiKey(t.ledger, call(generateApiKey(), flood), NOW)).toMatchObject({ status: 429 });

    expect(await authenticateApiKey(t.ledger, call(generateApiKey(), OTHER), NOW)).toMatchObject({ status: 401 });
  });

  it("never counts a request without a key, nor a valid key, against the address", async () => {
    const from = QUIET;
    for (let i = 0; i < BAD_KEYS_PER_ADDRESS + 5; i++) {
      expect(await authenticateApiKey(t.ledger, call(null, from), NOW)).toMatchObject({ ok: false, status: 401 });
    }
    for (let i = 0; i < 20; i++) {
      expect(await authenticateApiKey(t.ledger, call(valid, from), NOW)).toMatchObject({ ok: true });
    }
    expect(await authenticateApiKey(t.ledger, call(generateApiKey(), from), NOW)).toMatchObject({ status: 401 });
  });
});
