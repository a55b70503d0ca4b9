// The console's reads on a real database: the queues longest waiting first across pages, their counts, and the age
// filter.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { at, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { countQueues, listOperations, listQueue, type QueuePhase } from "./operations";

let t: TestDb;

beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "deploy", "UNKNOWN");
});

afterEach(async () => {
  await t.close();
});

/** Plans an operation at `plannedAt` and loses its outcome at `lostAt`: it enters UNKNOWN then. */
async function unknownAt(key: string, plannedAt: Date, lostAt: Date): Promise<string> {
  const { id, fence } = await planAndClaim(t.ledger, { tool: "deploy", args: { key }, idempotencyKey: key }, plannedAt);
  await dispatch(t.ledger, id, fence, plannedAt);
  await outcome(t.ledger, id, { fence, result: "unknown" }, lostAt);
  return id;
}

async function wholeQueue(phase: QueuePhase, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await listQueue(t.ledger, phase, { cursor, limit }, at(10_000_000));
    ids.push(...page.items.map((op) => op.id));
    cursor = page.nextCursor ?? undefined;
    pages += 1;
  } while (cursor);
  return { ids, pages };
}

describe("the Unknowns queue", () => {
  it("lists the longest waiting first across pages, by the time each entered UNKNOWN and not when it was planned", async () => {
    // Planned in one order, lost in another; two lost at the same millisecond (their ids break the tie).
    const lostAt = [50_000, 10_000, 40_000, 10_000, 30_000, 20_000, 60_000];
    const lost: { id: string; at: number }[] = [];
    for (const [i, ms] of lostAt.entries())
      lost.push({ id: await unknownAt(`k${i}`, at(i * 1000), at(100_000 + ms)), at: ms });
    // A confirmed operation is not in the queue.
    const done = await planAndClaim(t.ledger, { tool: "deploy", args: { key: "done" }, idempotencyKey: "done" }, at(0));
    await dispatch(t.ledger, done.id, done.fence, at(1));
    await outcome(t.ledger, done.id, { fence: done.fence, result: "confirmed" }, at(2));

    const expected = [...lost].sort((a, b) => a.at - b.at || a.id.localeCompare(b.id)).map((op) => op.id);
    const paged = await wholeQueue("UNKNOWN", 3);
    expect(paged.ids).toEqual(expected);
    expect(paged.pages).toBe(3);
    expect((await wholeQueue("UNKNOWN", 200)).ids).toEqual(expected);
    expect((await wholeQueue("AWAITING_APPROVAL", 3)).ids).toEqual([]);
    expect(await countQueues(t.ledger)).toEqual({ UNKNOWN: 7, AWAITING_APPROVAL: 0 });
  });

  it("refuses a cursor it did not make", async () => {
    await expect(listQueue(t.ledger, "UNKNOWN", { cursor: "01JABC", limit: 10 }, at(0))).rejects.toThrow(
      /not a queue cursor/,
    );
  });
});

describe("the ledger's age filter", () => {
  it("keeps operations created before the limit and drops newer ones, on every page", async () => {
    // Near the wall clock: ids are minted from it, and the filter counts on createdAt and the id agreeing within an
    // hour.
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const plannedAt = new Date(now - (50 - i * 10) * 60_000); // 50, 40, 30, 20 and 10 minutes ago
      ids.push(
        (await planAndClaim(t.ledger, { tool: "deploy", args: { i }, idempotencyKey: `age${i}` }, plannedAt)).id,
      );
    }
    const olderThan25Minutes = { createdBefore: new Date(now - 25 * 60_000) };
    const first = await listOperations(t.ledger, olderThan25Minutes, { limit: 2 }, new Date(now));
    expect(first.items.map((op) => op.id)).toEqual([ids[2], ids[1]]);
    const second = await listOperations(
      t.ledger,
      olderThan25Minutes,
      { cursor: first.nextCursor ?? "", limit: 2 },
      new Date(now),
    );
    expect(second.items.map((op) => op.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeNull();
    const all = await listOperations(t.ledger, {}, { limit: 10 }, new Date(now));
    expect(all.items.map((op) => op.id)).toEqual([...ids].reverse());
  });
});
