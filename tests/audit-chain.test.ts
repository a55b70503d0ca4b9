// The audit hash chains on both engines: concurrent commands extend unbroken chains, and verify-audit finds every kind of tampering.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AUDIT_CHAINS, auditChainOf, GENESIS_HASH, verifyAuditChain } from "@/lib/ledger/audit-chain";
import { planOperation } from "@/lib/ledger/plan";
import { agent, at, withContract } from "./helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "./helpers/lifecycle";
import { testPostgresUrl } from "./helpers/pg-databases";
import { createTestDb, type TestDb } from "./helpers/test-db";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.client, "payments.charge", "IDEMPOTENT");
});
afterEach(async () => t.close());

async function lifecycles(count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { id, fence } = await planAndClaim(t.client, { tool: "payments.charge", args: { i }, idempotencyKey: `k${i}` }, at(i), `w${i}`);
      await dispatch(t.client, id, fence, at(i + 1));
      await outcome(t.client, id, { fence, result: "confirmed", providerId: `ch_${i}` }, at(i + 2));
    }),
  );
}

/** The triggers forbid tampering, so the tests first do what an attacker with the database's owner rights would: drop them. */
async function dropAppendOnlyGuards(): Promise<void> {
  if (testPostgresUrl()) {
    await t.client.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`);
  } else {
    await t.client.$executeRawUnsafe(`DROP TRIGGER "AuditEvent_no_update"`);
    await t.client.$executeRawUnsafe(`DROP TRIGGER "AuditEvent_no_delete"`);
  }
}

/** The chain of the first operation planned by `lifecycles`, with its events in seq order. */
async function firstOperationChain(): Promise<{ chain: number; seqs: number[] }> {
  const op = await t.client.operation.findFirstOrThrow({ where: { idempotencyKey: "k0" } });
  const chain = auditChainOf("operation", op.id);
  const events = await t.client.auditEvent.findMany({ where: { chain }, orderBy: { seq: "asc" } });
  return { chain, seqs: events.map((e) => e.seq as number) };
}

describe("an untouched log", () => {
  it("verifies, each chain contiguous across concurrent commands and ending at its head", { timeout: 30_000 }, async () => {
    await lifecycles(8);
    const events = await t.client.auditEvent.findMany({ orderBy: [{ chain: "asc" }, { seq: "asc" }] });
    const report = await verifyAuditChain(t.client);
    expect(report).toMatchObject({ ok: true, chained: events.length, unchained: 0, problems: [] });
    expect(report.heads).toHaveLength(AUDIT_CHAINS);
    for (const head of report.heads) {
      const inChain = events.filter((e) => e.chain === head.chain);
      expect(inChain.map((e) => e.seq)).toEqual(inChain.map((_, i) => i + 1));
      expect(head).toEqual({ chain: head.chain, seq: inChain.length, hash: inChain.at(-1)?.hash ?? GENESIS_HASH });
    }
    // Eight operations spread over several chains, and each operation's events are all in the chain of its id.
    const operationEvents = events.filter((e) => e.subjectType === "operation");
    expect(new Set(operationEvents.map((e) => e.chain)).size).toBeGreaterThan(1);
    expect(operationEvents.every((e) => e.chain === auditChainOf("operation", e.subjectId))).toBe(true);
  });

  it("verifies an empty log", async () => {
    const fresh = await createTestDb();
    try {
      const report = await verifyAuditChain(fresh.client);
      expect(report).toMatchObject({ ok: true, chained: 0 });
      expect(report.heads.every((head) => head.seq === 0 && head.hash === GENESIS_HASH)).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it("keeps a failed command out of the chain: its transaction rolls back the head too", async () => {
    await lifecycles(2);
    const before = await verifyAuditChain(t.client);
    await expect(planOperation(t.client, { tool: "no.such.tool", args: {} }, agent, at(10))).rejects.toThrow(/no contract/);
    expect(await verifyAuditChain(t.client)).toEqual(before);
  });
});

describe("tampering", () => {
  beforeEach(async () => {
    await lifecycles(4);
    await dropAppendOnlyGuards();
  });

  it("finds a changed event", async () => {
    const { chain } = await firstOperationChain();
    await t.client.$executeRawUnsafe(`UPDATE "AuditEvent" SET "reason" = 'nothing to see' WHERE "chain" = ${chain} AND "seq" = 3`);
    const report = await verifyAuditChain(t.client);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([expect.stringMatching(new RegExp(`^event 3 of chain ${chain} \\(.*\\) does not match its hash`))]);
  });

  it("finds a removed event", async () => {
    const { chain } = await firstOperationChain();
    await t.client.$executeRawUnsafe(`DELETE FROM "AuditEvent" WHERE "chain" = ${chain} AND "seq" = 3`);
    const report = await verifyAuditChain(t.client);
    expect(report.problems).toEqual([
      expect.stringMatching(new RegExp(`^events 3 to 3 of chain ${chain} are missing`)),
      expect.stringMatching(new RegExp(`^event 4 of chain ${chain} .* does not match`)),
    ]);
  });

  it("finds a removed tail", async () => {
    const { chain, seqs } = await firstOperationChain();
    const last = seqs.length;
    await t.client.$executeRawUnsafe(`DELETE FROM "AuditEvent" WHERE "chain" = ${chain} AND "seq" = ${last}`);
    const report = await verifyAuditChain(t.client);
    expect(report.problems).toEqual([
      expect.stringMatching(new RegExp(`^the head of chain ${chain} says it ends at event ${last} .* but its last event is ${last - 1}`)),
    ]);
  });

  it("finds an event moved to another chain", async () => {
    const { chain, seqs } = await firstOperationChain();
    const other = (chain % AUDIT_CHAINS) + 1;
    await t.client.$executeRawUnsafe(`UPDATE "AuditEvent" SET "chain" = ${other}, "seq" = 1000 WHERE "chain" = ${chain} AND "seq" = ${seqs.length}`);
    const report = await verifyAuditChain(t.client);
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual(expect.stringMatching(new RegExp(`^the head of chain ${chain} says it ends at event ${seqs.length}`)));
  });

  it("finds an event inserted around the chain", async () => {
    await t.client.auditEvent.create({
      data: { id: "forged", subjectType: "operation", subjectId: "x", actorType: "user", actorId: "mallory", action: "operation.approved", createdAt: at(60_000) },
    });
    const report = await verifyAuditChain(t.client);
    expect(report.problems).toEqual([expect.stringMatching(/^1 events without a place in a chain are younger/)]);
  });
});

it("refuses to move a head back or remove it", async () => {
  await lifecycles(1);
  const { chain } = await firstOperationChain();
  await expect(t.client.auditChain.update({ where: { id: chain }, data: { seq: 0 } })).rejects.toThrow();
  await expect(t.client.$executeRawUnsafe(`DELETE FROM "AuditChain"`)).rejects.toThrow();
  expect(await verifyAuditChain(t.client)).toMatchObject({ ok: true });
});
