// Identifiers: time-sortable ULIDs, so "newest first" is an index scan on the primary key.
import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

/**
 * ulid's default asks the system for one random byte per character; a pool refilled 4 KiB at a time gives the same
 * bytes.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;
function pooledRandom(): number {
  if (used >= pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return (pool[used++] ?? 0) / 256;
}

const next = monotonicFactory(pooledRandom);

export function newId(): string {
  return next();
}

/** A server-made idempotency key, created once when the operation is planned. */
export function newIdempotencyKey(): string {
  return `opk_${next()}`;
}
