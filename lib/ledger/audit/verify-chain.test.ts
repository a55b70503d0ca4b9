// verify-audit anchored: a chain rewritten consistently inside the database passes the in-database check, and fails
// against the signed checkpoints and against a head saved before the rewrite.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planAndClaim, dispatch, outcome } from "@/tests/helpers/lifecycle";
import { at, withContract } from "@/tests/helpers/ledger-fixtures";
import { rewriteAuditChain } from "@/tests/helpers/audit-tamper";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { GENESIS_HASH } from "./chain";
import { checkpointHead, signCheckpoint, type CheckpointPolicy } from "./checkpoint";
import { generateSigningKey, parseSigningKey, parseVerifyingKey } from "./signing-key";
import { verifyAuditChain } from "./verify-chain";

const made = generateSigningKey();
const key = parseSigningKey(made.privateKeyPem);
const publicKey = parseVerifyingKey(made.publicKeyBase64);
const policy: CheckpointPolicy = { every: 1, intervalMs: 60_000 };

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

/** Events through both appenders: a contract (Prisma side) and an operation's lifecycle (the ledger store). */
async function activity(n: number): Promise<void> {
  await withContract(t.ledger, `tool.${n}`, "IDEMPOTENT");
  const { id, fence } = await planAndClaim(
    t.ledger,
    { tool: `tool.${n}`, args: { n }, idempotencyKey: `k${n}` },
    at(n * 10),
    `w${n}`,
  );
  await dispatch(t.ledger, id, fence, at(n * 10 + 1));
  await outcome(t.ledger, id, { fence, result: "confirmed", providerId: `p${n}` }, at(n * 10 + 2));
}

async function head(): Promise<{ seq: number; hash: string }> {
  const row = await t.db.auditChain.findUniqueOrThrow({ where: { id: 1 } });
  return { seq: row.seq, hash: row.hash };
}

async function checkpoint(ms: number): Promise<number> {
  const written = (await checkpointHead(t.ledger, key, policy, at(ms))).written;
  if (!written) throw new Error("expected a checkpoint");
  return written.seq;
}

it(
  "catches a whole chain rewritten consistently in the database, which the in-database check alone accepts",
  { timeout: 60_000 },
  async () => {
    await activity(1);
    const first = await checkpoint(100);
    await activity(2);
    const second = await checkpoint(200);
    // A head kept elsewhere before the rewrite (the checkpoint's log line, a ticket).
    const saved = await head();
    await activity(3);
    const third = await checkpoint(300);
    expect(await verifyAuditChain(t.ledger, { verifyingKeys: [publicKey], expectHead: saved })).toMatchObject({
      ok: true,
      problems: [],
      warnings: [],
      checkpoints: { checked: 3, newest: { seq: third } },
    });

    // Between the first and the second checkpoint: every hash from there on and the head's are recomputed.
    const victim = first + 1;
    await rewriteAuditChain(t.db, t.engine, victim, "nothing to see here");
    expect((await t.db.auditEvent.findUniqueOrThrow({ where: { seq: victim } })).reason).toBe("nothing to see here");

    const plain = await verifyAuditChain(t.ledger);
    expect(plain).toMatchObject({ ok: true, problems: [], head: { seq: third } });
    expect(plain.head.hash).not.toBe((await t.db.auditCheckpoint.findUniqueOrThrow({ where: { seq: third } })).hash);

    const anchored = await verifyAuditChain(t.ledger, { verifyingKeys: [publicKey] });
    expect(anchored.ok).toBe(false);
    expect(anchored.problems).toEqual([
      expect.stringMatching(
        new RegExp(`^checkpoint ${second} was signed for hash [0-9a-f]{12}…, but the chain has [0-9a-f]{12}… there`),
      ),
      expect.stringMatching(new RegExp(`^checkpoint ${third} was signed for hash`)),
    ]);
    expect(anchored.checkpoints).toMatchObject({ checked: 3 });

    const expected = await verifyAuditChain(t.ledger, { expectHead: { seq: null, hash: saved.hash } });
    expect(expected.ok).toBe(false);
    expect(expected.problems).toEqual([
      expect.stringMatching(
        /^the expected head [0-9a-f]{12}… is not in the chain up to its head \d+: the chain was rewritten/,
      ),
    ]);
    expect((await verifyAuditChain(t.ledger, { expectHead: { seq: saved.seq, hash: saved.hash } })).problems).toEqual([
      expect.stringMatching(new RegExp(`^the expected head ${saved.seq}:[0-9a-f]{12}… is not in the chain`)),
    ]);
  },
);

describe("checkpoints", () => {
  beforeEach(async () => {
    await activity(1);
  });

  it("with no checkpoint: a warning, and a problem only when one is required", async () => {
    expect(await verifyAuditChain(t.ledger, { verifyingKeys: [publicKey] })).toMatchObject({
      ok: true,
      warnings: [expect.stringMatching(/^there are no signed checkpoints/)],
      checkpoints: { checked: 0, newest: null },
    });
    expect(await verifyAuditChain(t.ledger, { verifyingKeys: [publicKey], requireCheckpoint: true })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^there are no signed checkpoints/)],
    });
  });

  it("fails every checkpoint against the wrong public key, naming its seq", async () => {
    const seq = await checkpoint(100);
    const wrong = parseVerifyingKey(generateSigningKey().publicKeyPem);
    expect((await verifyAuditChain(t.ledger, { verifyingKeys: [wrong] })).problems).toEqual([
      expect.stringMatching(
        new RegExp(`^checkpoint ${seq} names signing key [0-9a-f]{16}…, which is none of the given`),
      ),
    ]);
    // Key rotation: the old and the new public key together.
    expect(await verifyAuditChain(t.ledger, { verifyingKeys: [wrong, publicKey] })).toMatchObject({ ok: true });
  });

  it("fails a checkpoint forged in the database: another key claiming this key's id, or a changed hash", async () => {
    const seq = await checkpoint(100);
    const forger = parseSigningKey(generateSigningKey().privateKeyBase64);
    const forged = signCheckpoint({ ...forger, keyId: key.keyId }, { seq: seq - 1, hash: "f".repeat(64) }, at(50));
    await t.db.auditCheckpoint.create({ data: forged });
    await t.db.auditCheckpoint.update({ where: { seq }, data: { hash: "e".repeat(64) } });
    expect((await verifyAuditChain(t.ledger, { verifyingKeys: [publicKey] })).problems).toEqual([
      expect.stringMatching(new RegExp(`^checkpoint ${seq - 1} is not signed by key`)),
      expect.stringMatching(new RegExp(`^checkpoint ${seq} is not signed by key`)),
    ]);
  });

  it("fails a checkpoint past the chain's end (events removed from the tail with their guards off)", async () => {
    const tip = await head();
    const beyond = signCheckpoint(key, { seq: tip.seq + 5, hash: "a".repeat(64) }, at(100));
    await t.db.auditCheckpoint.create({ data: beyond });
    expect((await verifyAuditChain(t.ledger, { verifyingKeys: [publicKey] })).problems).toEqual([
      expect.stringMatching(
        new RegExp(`^checkpoint ${tip.seq + 5} was signed for hash a{12}…, but the chain has no event`),
      ),
    ]);
  });
});

describe("--expect-head", () => {
  it("accepts any head the chain went through, with or without its seq, and the genesis", async () => {
    await activity(1);
    const earlier = await head();
    await activity(2);
    for (const expectHead of [
      { seq: null, hash: earlier.hash },
      earlier,
      await head(),
      { seq: 0, hash: GENESIS_HASH },
    ]) {
      expect(await verifyAuditChain(t.ledger, { expectHead })).toMatchObject({ ok: true, problems: [] });
    }
  });

  it("refuses a head it holds at another seq", async () => {
    await activity(1);
    const earlier = await head();
    expect(
      (await verifyAuditChain(t.ledger, { expectHead: { seq: earlier.seq + 1, hash: earlier.hash } })).problems,
    ).toEqual([
      expect.stringMatching(new RegExp(`is event ${earlier.seq} in the chain, not event ${earlier.seq + 1}`)),
    ]);
  });
});
