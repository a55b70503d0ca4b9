// Signed checkpoints: the signature covers exactly the head and the time, the decision to write one follows the policy,
// and several instances write each head once.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import {
  checkpointHead,
  checkpointMessage,
  checkpointSignedBy,
  decideCheckpoint,
  signCheckpoint,
  type CheckpointPolicy,
} from "./checkpoint";
import { generateSigningKey, parseSigningKey, parseVerifyingKey } from "./signing-key";

const made = generateSigningKey();
const key = parseSigningKey(made.privateKeyBase64);
const publicKey = parseVerifyingKey(made.publicKeyBase64);
const T = new Date("2026-12-01T10:00:00.000Z");
const head = { seq: 42, hash: "ab".repeat(32) };

describe("signing a head", () => {
  it("signs exactly 'opledger-audit-checkpoint\\n<seq>\\n<hash>\\n<createdAt ISO>'", () => {
    expect(checkpointMessage(head, T).toString("utf8")).toBe(
      `opledger-audit-checkpoint\n42\n${"ab".repeat(32)}\n2026-12-01T10:00:00.000Z`,
    );
    const checkpoint = signCheckpoint(key, head, T);
    expect(checkpoint).toMatchObject({ seq: 42, hash: head.hash, keyId: made.keyId, createdAt: T });
    expect(Buffer.from(checkpoint.signature, "base64")).toHaveLength(64);
    expect(checkpointSignedBy(publicKey, checkpoint)).toBe(true);
  });

  it.each([
    ["another seq", { seq: 43 }],
    ["another hash", { hash: "cd".repeat(32) }],
    ["another time", { createdAt: new Date(T.getTime() + 1) }],
    ["a garbled signature", { signature: "AAAA" }],
  ])("does not verify with %s", (_, change) => {
    expect(checkpointSignedBy(publicKey, { ...signCheckpoint(key, head, T), ...change })).toBe(false);
  });

  it("does not verify with the wrong key", () => {
    const other = parseVerifyingKey(generateSigningKey().publicKeyPem);
    expect(checkpointSignedBy(other, signCheckpoint(key, head, T))).toBe(false);
  });
});

describe("when to sign the head", () => {
  const policy: CheckpointPolicy = { every: 1000, intervalMs: 60_000 };
  const newest = { seq: 5000, createdAt: T };
  const later = (ms: number): Date => new Date(T.getTime() + ms);
  it.each([
    ["an empty chain", null, 0, later(0), { write: false, reason: "empty" }],
    ["the first events", null, 3, later(0), { write: true, reason: "first" }],
    ["a head that has not moved", newest, 5000, later(3_600_000), { write: false, reason: "unmoved" }],
    ["a head behind the newest checkpoint", newest, 4000, later(3_600_000), { write: false, reason: "unmoved" }],
    [
      "fewer events than `every`, before the interval",
      newest,
      5999,
      later(59_999),
      { write: false, reason: "not_yet" },
    ],
    ["`every` events", newest, 6000, later(1), { write: true, reason: "events" }],
    ["one event, after the interval", newest, 5001, later(60_000), { write: true, reason: "interval" }],
  ] as const)("%s", (_, last, seq, now, decision) => {
    expect(decideCheckpoint(last, { seq }, now, policy)).toEqual(decision);
  });
});

describe("on a database", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await createTestDb();
  });
  afterEach(async () => t.close());

  const policy: CheckpointPolicy = { every: 3, intervalMs: 60_000 };
  async function events(n: number, from = 0): Promise<void> {
    for (let i = from; i < from + n; i++) await withContract(t.ledger, `tool.${i}`, "PURE");
  }

  it("signs the head as it is, then only when the policy says so", async () => {
    expect(await checkpointHead(t.ledger, key, policy, T)).toEqual({ written: null, reason: "empty" });
    await events(2);
    const first = await checkpointHead(t.ledger, key, policy, T);
    const chain = await t.db.auditChain.findUniqueOrThrow({ where: { id: 1 } });
    expect(first).toMatchObject({ reason: "first", written: { seq: chain.seq, hash: chain.hash } });
    const stored = await t.db.auditCheckpoint.findUniqueOrThrow({ where: { seq: chain.seq } });
    expect(checkpointSignedBy(publicKey, stored)).toBe(true);
    expect(await checkpointHead(t.ledger, key, policy, T)).toEqual({ written: null, reason: "unmoved" });
    await events(1, 2);
    expect(await checkpointHead(t.ledger, key, policy, T)).toEqual({ written: null, reason: "not_yet" });
    expect(await checkpointHead(t.ledger, key, policy, new Date(T.getTime() + 60_000))).toMatchObject({
      reason: "interval",
    });
    await events(3, 3);
    expect(await checkpointHead(t.ledger, key, policy, new Date(T.getTime() + 60_001))).toMatchObject({
      reason: "events",
    });
    expect(await t.db.auditCheckpoint.count()).toBe(3);
  });

  it("writes each head once when several instances sign it at the same moment", async () => {
    await events(2);
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => checkpointHead(t.ledger, key, policy, T)));
    expect(outcomes.filter((o) => o.written)).toHaveLength(1);
    for (const o of outcomes.filter((o) => !o.written)) expect(["taken", "unmoved"]).toContain(o.reason);
    expect(await t.db.auditCheckpoint.count()).toBe(1);
  });
});
