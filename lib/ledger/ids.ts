// Identifiers: time-sortable ULIDs, so "newest first" is an index scan on the primary key.
import { monotonicFactory } from "ulid";

const next = monotonicFactory();

export function newId(): string {
  return next();
}

/** A server-made idempotency key, created once when the operation is planned. */
export function newIdempotencyKey(): string {
  return `opk_${next()}`;
}
