// The ledger page's server-rendered page of rows on a real database: the same rows, order, paging and "older than" as
// the console route answers.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { at, withContract } from "@/tests/helpers/ledger-fixtures";
import { planAndClaim } from "@/tests/helpers/lifecycle";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { readOperationPage } from "./ledger-page";
import { ledgerRequest, readLedgerLocation } from "./ledger-search";

let t: TestDb;

beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "deploy", "UNKNOWN");
});

afterEach(async () => {
  await t.close();
});

/** Plans one operation per minute from T0; returns their ids, oldest first. */
async function planMinutes(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const key = `k${i}`;
    ids.push((await planAndClaim(t.ledger, { tool: "deploy", args: { key }, idempotencyKey: key }, at(i * 60_000))).id);
  }
  return ids;
}

const requestFor = (query: string) => ledgerRequest(readLedgerLocation(new URLSearchParams(query)));

describe("the ledger page's rows", () => {
  it("are the newest first, a page at a time, from the cursor the URL names", async () => {
    const newest = (await planMinutes(5)).reverse();
    const first = await readOperationPage(t.ledger, requestFor("limit=2"), at(600_000));
    expect(first.items.map((op) => op.id)).toEqual(newest.slice(0, 2));
    expect(first.nextCursor).toBe(newest[1]);
    const second = await readOperationPage(t.ledger, requestFor(`limit=2&cursors=${first.nextCursor}`), at(600_000));
    expect(second.items.map((op) => op.id)).toEqual(newest.slice(2, 4));
    expect(first.items[0]).toMatchObject({ tool: "deploy", phase: "PLANNED", createdAt: at(240_000).toISOString() });
  });

  it("count 'older than' back from the request's instant", async () => {
    // Planned now by the wall clock, since the age filter is also a range of ids, which are minted by it.
    const plannedAt = new Date();
    const { id } = await planAndClaim(t.ledger, { tool: "deploy", args: { key: "k" }, idempotencyKey: "k" }, plannedAt);
    const minutesLater = (m: number) => new Date(plannedAt.getTime() + m * 60_000);
    expect((await readOperationPage(t.ledger, requestFor("age=5m"), minutesLater(4))).items).toEqual([]);
    const page = await readOperationPage(t.ledger, requestFor("age=5m"), minutesLater(6));
    expect(page.items.map((op) => op.id)).toEqual([id]);
  });
});
