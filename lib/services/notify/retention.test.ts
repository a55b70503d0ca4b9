// The delivery log's retention on a real database: deliveries over and older than 30 days go, pending ones and recent
// ones stay, a deleted webhook's old deliveries go too, and an operation UNKNOWN for longer than the log keeps is not
// announced again once its unknowns.aged delivery was pruned.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { alice, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { newId } from "@/lib/ledger/ids";
import { DELIVERY_LOG_RETENTION_MS, pruneDeliveryLog } from "./retention";
import { scanAgedUnknowns } from "./scans";
import { newWhsec } from "./test-receiver.test-helper";
import { putWebhook } from "./webhooks";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

const DAY = 24 * 3_600_000;

async function delivery(webhook: string, status: string, createdAt: Date): Promise<string> {
  const id = newId();
  await t.db.webhookDelivery.create({
    data: {
      id,
      webhook,
      eventType: "operation.unknown",
      eventKey: `audit:${id}`,
      payloadJson: "{}",
      status,
      createdAt,
      nextAttemptAt: status === "pending" ? createdAt : null,
    },
  });
  return id;
}

describe("pruneDeliveryLog", () => {
  it("deletes deliveries over and older than 30 days, of every webhook, and keeps pending and recent ones", async () => {
    const now = at(40 * DAY);
    const old = at(40 * DAY - DELIVERY_LOG_RETENTION_MS - 1);
    const recent = at(40 * DAY - DELIVERY_LOG_RETENTION_MS + 1);
    const gone = [
      await delivery("oncall", "delivered", old),
      await delivery("oncall", "failed", old),
      await delivery("removed-webhook", "delivered", old),
    ];
    const kept = [
      await delivery("oncall", "pending", old),
      await delivery("oncall", "delivered", recent),
      await delivery("zz-last", "failed", recent),
    ];
    expect(await pruneDeliveryLog(t.ledger, now)).toBe(3);
    const left = (await t.db.webhookDelivery.findMany({ select: { id: true } })).map((d) => d.id);
    expect(left.sort()).toEqual([...kept].sort());
    expect(left.some((id) => gone.includes(id))).toBe(false);
    expect(await pruneDeliveryLog(t.ledger, now)).toBe(0);
  });

  it("pages through a large log", async () => {
    const old = T0;
    await t.db.webhookDelivery.createMany({
      data: Array.from({ length: 2_500 }, (_, i) => ({
        id: newId(),
        webhook: "oncall",
        eventType: "operation.unknown",
        eventKey: `audit:${i}`,
        payloadJson: "{}",
        status: "delivered",
        createdAt: old,
      })),
    });
    expect(await pruneDeliveryLog(t.ledger, at(DELIVERY_LOG_RETENTION_MS + 1))).toBe(2_500);
    expect(await t.db.webhookDelivery.count()).toBe(0);
  });
});

describe("unknowns.aged and the retention", () => {
  it("announces an aged unknown once, and not again after its delivery was pruned", async () => {
    await putWebhook(
      t.ledger,
      "oncall",
      { url: "http://127.0.0.1:9/hook", events: ["unknowns.aged"], secret: "OPLEDGER_SECRET_TEST_HOOK" },
      alice,
      T0,
      { allowPrivate: true, environment: { OPLEDGER_SECRET_TEST_HOOK: newWhsec() } },
    );
    await withContract(t.ledger, "email.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
    const op = await planAndClaim(t.ledger, { tool: "email.send", args: { to: "a@b.c" } }, T0);
    await dispatch(t.ledger, op.id, op.fence, at(1));
    await outcome(t.ledger, op.id, { fence: op.fence, result: "unknown" }, at(2));

    expect(await scanAgedUnknowns(t.ledger, at(DAY))).toBe(1);
    await t.db.webhookDelivery.updateMany({ data: { status: "delivered" } });
    const afterRetention = at(2 + DELIVERY_LOG_RETENTION_MS + DAY);
    expect(await pruneDeliveryLog(t.ledger, afterRetention)).toBe(1);
    expect(await scanAgedUnknowns(t.ledger, afterRetention)).toBe(0);
    expect(await t.db.webhookDelivery.count()).toBe(0);
  });
});
