// Find anything: the insert trigger fills the argument index on each engine's store, every kind of text finds its
// operations newest first and paged, matching is exact, and an agent key finds only its own operations.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { otherAgent } from "@/tests/helpers/ledger-model-authority";
import { outcome, planAndClaim, dispatch } from "@/tests/helpers/lifecycle";
import { planOperation } from "@/lib/ledger/commands/plan";
import { canonicalJson } from "@/lib/ledger/canonical-json";
import { searchOperations } from "./search";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
});
afterEach(async () => t.close());

const ARGS = {
  customer: { id: "cus_42", email: "ada@example.test" },
  items: [
    { sku: "SKU-1", qty: 2 },
    { sku: "SKU-1", qty: 7.5 },
  ],
  note: "x".repeat(201),
  gift: true,
  coupon: null,
};

async function plan(args: unknown, key: string, ms = 0, actor = agent, runId?: string) {
  const { operation } = await planOperation(
    t.ledger,
    { tool: "payments.charge", args, idempotencyKey: key, ...(runId ? { runId } : {}) },
    actor,
    at(ms),
  );
  return operation;
}

async function termsOf(operationId: string): Promise<string[]> {
  const rows = await t.db.operationSearchTerm.findMany({ where: { operationId }, select: { term: true } });
  return rows.map((r) => r.term).sort();
}

describe("the argument index", () => {
  it("is written by the insert trigger through the engine's own store: each string and number leaf once", async () => {
    const op = await plan(ARGS, "k1");
    expect(await termsOf(op.id)).toEqual(["2", "7.5", "SKU-1", "ada@example.test", "cus_42"].sort());
  });

  it("refuses any change of an operation's arguments, so the index stays true", async () => {
    const op = await plan(ARGS, "k1");
    const param = t.engine === "postgresql" ? "$1" : "?";
    await expect(
      t.db.$executeRawUnsafe(`UPDATE "Operation" SET "argsJson" = '{}' WHERE "id" = ${param}`, op.id),
    ).rejects.toThrow(/arguments never change/);
    expect((await t.db.operation.findUniqueOrThrow({ where: { id: op.id } })).argsJson).toBe(canonicalJson(ARGS));
    // Other columns still change as the commands change them.
    await t.db.operation.update({ where: { id: op.id }, data: { providerId: "ch_1" } });
  });

  it("is backfilled by the migration for operations planned before it", async () => {
    const op = await plan(ARGS, "k1");
    await t.db.operationSearchTerm.deleteMany({});
    const dir = t.engine === "postgresql" ? "prisma/postgresql/migrations" : "prisma/migrations";
    const migration = fs.readFileSync(path.join(dir, "20261202100100_search_terms", "migration.sql"), "utf8");
    const backfill = migration.split("-- The operations planned before this migration.")[1];
    expect(backfill).toBeTruthy();
    await t.db.$executeRawUnsafe(backfill!);
    expect(await termsOf(op.id)).toEqual(["2", "7.5", "SKU-1", "ada@example.test", "cus_42"].sort());
  });
});

describe("searchOperations", () => {
  it("finds by an operation id, and says so", async () => {
    const op = await plan(ARGS, "k1");
    const page = await searchOperations(t.ledger, { q: op.id, limit: 50 }, T0);
    expect(page.operationId).toBe(op.id);
    expect(page.items.map((i) => [i.id, i.matched])).toEqual([[op.id, ["id"]]]);
  });

  it("finds by idempotency key, provider id and run id", async () => {
    const byKey = await plan({ a: 1 }, "order-7781", 0, agent, "run-9");
    const { id, fence } = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: { a: 2 }, idempotencyKey: "k2" },
      at(1),
    );
    await dispatch(t.ledger, id, fence, at(2));
    await outcome(t.ledger, id, { fence, result: "confirmed", providerId: "ch_3PqR" }, at(3));

    const key = await searchOperations(t.ledger, { q: "order-7781", limit: 50 }, T0);
    expect(key.items.map((i) => [i.id, i.matched])).toEqual([[byKey.id, ["idempotencyKey"]]]);
    expect(key.operationId).toBeNull();
    const provider = await searchOperations(t.ledger, { q: "ch_3PqR", limit: 50 }, T0);
    expect(provider.items.map((i) => [i.id, i.matched])).toEqual([[id, ["providerId"]]]);
    const run = await searchOperations(t.ledger, { q: "run-9", limit: 50 }, T0);
    expect(run.items.map((i) => [i.id, i.matched])).toEqual([[byKey.id, ["runId"]]]);
  });

  it("finds by a value inside the arguments, a number as it is written, newest first and paged exactly", async () => {
    const first = await plan({ customer: "cus_42", amount: 1200 }, "k1", 0);
    await plan({ customer: "cus_43", amount: 1200 }, "k2", 1);
    const third = await plan({ customer: { id: "cus_42" } }, "k3", 2);
    const fourth = await plan({ to: ["cus_42"], cc: "cus_42" }, "k4", 3);

    const one = await searchOperations(t.ledger, { q: "cus_42", limit: 2 }, T0);
    expect(one.items.map((i) => i.id)).toEqual([fourth.id, third.id]);
    expect(one.items.every((i) => i.matched.join() === "args")).toBe(true);
    expect(one.nextCursor).toBe(third.id);
    const two = await searchOperations(t.ledger, { q: "cus_42", limit: 2, cursor: one.nextCursor! }, T0);
    expect(two.items.map((i) => i.id)).toEqual([first.id]);
    expect(two.nextCursor).toBeNull();

    const amount = await searchOperations(t.ledger, { q: "1200", limit: 50 }, T0);
    expect(amount.items).toHaveLength(2);
  });

  it("matches exactly: another case, a part of a value or a key name finds nothing; white space around is trimmed", async () => {
    const op = await plan(ARGS, "k1");
    for (const q of ["CUS_42", "cus_4", "customer", "true", "", "   "]) {
      expect((await searchOperations(t.ledger, { q, limit: 50 }, T0)).items, q).toEqual([]);
    }
    expect((await searchOperations(t.ledger, { q: "  cus_42 ", limit: 50 }, T0)).items.map((i) => i.id)).toEqual([
      op.id,
    ]);
  });

  it("gives an agent key only its own operations, by every kind of text", async () => {
    const mine = await plan({ customer: "cus_42" }, "k1", 0, agent, "run-shared");
    const theirs = await plan({ customer: "cus_42" }, "k2", 1, otherAgent, "run-shared");
    for (const q of ["cus_42", "run-shared"]) {
      const all = await searchOperations(t.ledger, { q, limit: 50 }, T0);
      expect(all.items.map((i) => i.id)).toEqual([theirs.id, mine.id]);
      const own = await searchOperations(t.ledger, { q, limit: 50, plannedByKeyId: agent.id }, T0);
      expect(own.items.map((i) => i.id)).toEqual([mine.id]);
    }
    const foreign = await searchOperations(t.ledger, { q: theirs.id, limit: 50, plannedByKeyId: agent.id }, T0);
    expect(foreign).toEqual({ items: [], nextCursor: null, operationId: null });
  });
});
