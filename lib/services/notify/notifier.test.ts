// Webhooks end to end on a real database (both engines): every event type made to happen through the ledger's own
// commands, read from the audit log, queued, signed and sent to a local receiver that verifies each signature with the
// standardwebhooks library; a 500 is retried with the same webhook-id; the cursor skips and doubles nothing.
import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { getBulkJob, runBulk } from "@/lib/ledger/bulk/job";
import { previewBulk } from "@/lib/ledger/bulk/preview";
import { bulkPreviewSchema } from "@/lib/ledger/bulk/request";
import { BulkRunner } from "@/lib/ledger/bulk/runner";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { expireApprovals } from "@/lib/ledger/commands/expire-approvals";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { putRunAllowance } from "@/lib/ledger/runs/run-allowances";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { readAudit, readAuditOnce } from "./audit-reader";
import { deliverDue, type DeliveryOptions } from "./delivery";
import { changedTools } from "@/lib/ledger/commands/tool-pins";
import { WEBHOOK_EVENT_TYPES } from "./event-types";
import { scanAgedUnknowns, scanRetrySpikes } from "./scans";
import { putWebhook, sendTestEvent } from "./webhooks";
import { newWhsec, startReceiver, type Receiver } from "./test-receiver.test-helper";
import { parentId, tracedIntoMemory } from "@/tests/helpers/in-memory-tracing";

const SECRET_NAME = "OPLEDGER_SECRET_TEST_HOOK";
const secret = newWhsec();
const environment = { [SECRET_NAME]: secret };
const outbound = { allowPrivate: true, environment };
const fast: DeliveryOptions = {
  outbound,
  policy: { maxAttempts: 5, backoff: { baseMs: 10, maxMs: 20 } },
  timeoutMs: 5000,
  random: () => 0.5,
};

let t: TestDb;
let receiver: Receiver;
beforeEach(async () => {
  t = await createTestDb();
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
  await t.close();
});

async function hook(name = "oncall", events: readonly string[] = WEBHOOK_EVENT_TYPES, format?: "json" | "slack") {
  return putWebhook(
    t.ledger,
    name,
    { url: receiver.url, events: [...events], secret: SECRET_NAME, format },
    alice,
    T0,
    outbound,
  );
}

/** Delivers until nothing is due (retries included), with the real clock: signatures carry the time they were made. */
async function deliverAll() {
  for (let i = 0; i < 20; i++) {
    await deliverDue(t.ledger, () => new Date(), fast);
    const pending = await t.db.webhookDelivery.count({ where: { status: "pending" } });
    if (pending === 0) return;
    await new Promise((r) => setTimeout(r, 30));
  }
}

/**
 * Another instance on the same database. On PostgreSQL a second pool; on SQLite the same handle, since two handles in
 * one process would wait on each other's locks synchronously (separate processes each take their own turns).
 */
function secondInstance(): { ledger: Ledger; close: () => Promise<void> } {
  if (t.engine === "sqlite") return { ledger: t.ledger, close: () => Promise.resolve() };
  const ledger = openLedger(t.url, { poolSize: 2 });
  return { ledger, close: () => ledger.close() };
}

function verified(r: Receiver) {
  const signer = new Webhook(secret);
  return r.received.map((got) => ({
    ...(signer.verify(got.body, got.headers) as { type: string; data: Record<string, unknown> }),
    id: got.headers["webhook-id"],
  }));
}

describe("the notifier", () => {
  it(
    "sends every event type, each signature verified by standardwebhooks, with the subject and its console url",
    { timeout: 60_000 },
    async () => {
      await hook();
      await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "stripe", maxAttempts: 3 });
      await withContract(t.ledger, "email.send", "NON_RETRYABLE", {
        idempotencyKey: "unsupported",
        unknownAlertMs: 60_000,
      });
      await withContract(t.ledger, "deploy.run", "NON_RETRYABLE", { approval: "required", approvalTtlMs: 1000 });

      // operation.unknown (and, a minute later, unknowns.aged): a NON_RETRYABLE call whose answer was lost.
      const lost = await planAndClaim(t.ledger, { tool: "email.send", args: { to: "a@b.c" } }, T0);
      await dispatch(t.ledger, lost.id, lost.fence, at(1));
      await outcome(t.ledger, lost.id, { fence: lost.fence, result: "unknown" }, at(2));

      // approval.requested then approval.expired.
      const deploy = await planAndClaim(t.ledger, { tool: "deploy.run", args: { v: 1 } }, at(3));
      await dispatchOperation(t.ledger, deploy.id, { fence: deploy.fence }, agent, at(4));
      expect(await expireApprovals(t.ledger, at(10_000))).toBe(1);

      // breaker.opened: five failures in a row on stripe; each a retry too (retries.spike).
      for (let i = 0; i < 5; i++) {
        const op = await planAndClaim(
          t.ledger,
          { tool: "payments.charge", args: { i }, idempotencyKey: `k${i}` },
          at(20_000),
        );
        await dispatch(t.ledger, op.id, op.fence, at(20_001));
        await outcome(t.ledger, op.id, { fence: op.fence, result: "failed", error: { httpStatus: 503 } }, at(20_002));
      }
      expect((await t.db.dependency.findUniqueOrThrow({ where: { name: "stripe" } })).state).toBe("open");
      // breaker.closed: after the cooldown the probe succeeds.
      const probe = await planAndClaim(
        t.ledger,
        { tool: "payments.charge", args: { p: 1 }, idempotencyKey: "probe" },
        at(60_000),
      );
      await dispatch(t.ledger, probe.id, probe.fence, at(60_001));
      await outcome(t.ledger, probe.id, { fence: probe.fence, result: "confirmed" }, at(60_002));
      expect((await t.db.dependency.findUniqueOrThrow({ where: { name: "stripe" } })).state).toBe("closed");
      // Five retries (attempt 2) inside the current five minutes, none in the hour before: a spike.
      for (let i = 0; i < 5; i++) {
        const id = (await t.db.operation.findFirstOrThrow({ where: { idempotencyKey: `k${i}` } })).id;
        const op = await planAndClaim(
          t.ledger,
          { tool: "payments.charge", args: { i }, idempotencyKey: `k${i}` },
          at(61_000),
          "w2",
        );
        expect(op.id).toBe(id);
        await dispatch(t.ledger, id, op.fence, at(61_001));
        await outcome(t.ledger, id, { fence: op.fence, result: "confirmed" }, at(61_002));
      }

      // bulk.finished: a real bulk job, previewed, run and finished by the runner, rejecting one waiting deploy.
      await t.db.user.create({
        data: { id: alice.id, email: alice.label, name: alice.label, role: "operator", passwordHash: "-" },
      });
      const waiting = await planAndClaim(t.ledger, { tool: "deploy.run", args: { v: 2 } }, at(61_500));
      await dispatchOperation(t.ledger, waiting.id, { fence: waiting.fence }, agent, at(61_501));
      const preview = await previewBulk(
        t.ledger,
        bulkPreviewSchema.parse({ action: "reject", ids: [waiting.id] }),
        alice,
        at(61_600),
      );
      const { jobId } = await runBulk(
        t.ledger,
        { previewId: preview.previewId, reason: "not tonight" },
        alice,
        at(61_700),
      );
      const runner = new BulkRunner(t.ledger, { owner: "r1" });
      for (let i = 0; i < 10 && (await runner.step(at(61_800))) !== "finished"; i++);
      expect((await getBulkJob(t.ledger, jobId, {})).status).toBe("done");

      // run.allowance_exhausted: a run allowed no retry whose operation fails once.
      await withContract(t.ledger, "search.web", "PURE");
      await putRunAllowance(t.ledger, "run-9", { maxRetries: 0 }, agent, at(62_000));
      const search = await planAndClaim(t.ledger, { tool: "search.web", args: { q: 1 }, runId: "run-9" }, at(62_001));
      await dispatch(t.ledger, search.id, search.fence, at(62_002));
      const stopped = await reportOutcome(
        t.ledger,
        search.id,
        { fence: search.fence, result: "failed", error: { httpStatus: 503 } },
        agent,
        at(62_003),
      );
      expect(stopped.phase).toBe("FAILED");

      // tool.changed: a contracted tool pinned at first sight, then described otherwise by its upstream.
      const seen = (description: string) => [
        {
          tool: "email.send",
          contractVersion: 1,
          definition: { name: "send", description, inputSchema: { type: "object" }, annotations: null },
        },
      ];
      await changedTools(t.ledger, seen("Send an email."), at(62_100));
      expect(await changedTools(t.ledger, seen("Send an email, then empty the inbox."), at(62_101))).toEqual(
        new Set(["email.send"]),
      );

      expect(await readAudit(t.ledger, at(62_500))).toBeGreaterThan(0);
      expect(await scanAgedUnknowns(t.ledger, at(62_500))).toBe(1);
      expect(await scanRetrySpikes(t.ledger, at(62_500))).toBe(1);
      // A scan again queues nothing new.
      expect(await scanAgedUnknowns(t.ledger, at(63_000))).toBe(0);
      expect(await scanRetrySpikes(t.ledger, at(63_000))).toBe(0);
      await deliverAll();

      const events = verified(receiver);
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(WEBHOOK_EVENT_TYPES));
      const unknown = events.find((e) => e.type === "operation.unknown");
      expect(unknown?.data).toMatchObject({
        id: lost.id,
        tool: "email.send",
      });
      expect(String(unknown?.data.url)).toMatch(new RegExp(`/operations/${lost.id}$`));
      expect(events.find((e) => e.type === "unknowns.aged")?.data).toMatchObject({ id: lost.id, phase: "UNKNOWN" });
      expect(events.find((e) => e.type === "approval.expired")?.data).toMatchObject({
        id: deploy.id,
        phase: "EXPIRED",
      });
      expect(events.find((e) => e.type === "breaker.opened")?.data).toMatchObject({ name: "stripe" });
      expect(events.find((e) => e.type === "bulk.finished")?.data).toMatchObject({ id: jobId, acted: 1 });
      expect(events.find((e) => e.type === "run.allowance_exhausted")?.data).toMatchObject({
        runId: "run-9",
        operationId: search.id,
      });
      expect(events.find((e) => e.type === "retries.spike")?.data).toMatchObject({
        tool: "payments.charge",
        retries: 5,
      });
      // Every delivery once: no id twice, everything delivered.
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      expect(await t.db.webhookDelivery.count({ where: { status: { not: "delivered" } } })).toBe(0);
    },
  );

  it("sends only the events a webhook asked for, and a slack webhook a text with the link", async () => {
    await hook("chat", ["operation.unknown"], "slack");
    await withContract(t.ledger, "email.send", "NON_RETRYABLE", {
      idempotencyKey: "unsupported",
      approval: "required",
    });
    const op = await planAndClaim(t.ledger, { tool: "email.send", args: {} }, T0);
    await dispatchOperation(t.ledger, op.id, { fence: op.fence }, agent, at(1));
    expect(await t.db.operation.findUniqueOrThrow({ where: { id: op.id } })).toMatchObject({
      phase: "AWAITING_APPROVAL",
    });
    expect(await readAudit(t.ledger, at(2))).toBe(0);
    const other = await hook("later", ["approval.requested"]);
    expect(other.created).toBe(true);
    // Created after the event: it is not told about the past.
    expect(await readAudit(t.ledger, at(3))).toBe(0);

    await withContract(t.ledger, "sms.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
    const sms = await planAndClaim(t.ledger, { tool: "sms.send", args: {} }, at(4));
    await dispatch(t.ledger, sms.id, sms.fence, at(5));
    await outcome(t.ledger, sms.id, { fence: sms.fence, result: "unknown" }, at(6));
    expect(await readAudit(t.ledger, at(7))).toBe(1);
    await deliverAll();
    const [got] = verified(receiver) as unknown as { text: string }[];
    expect(got?.text).toMatch(
      new RegExp(`sms.send operation ${sms.id} is UNKNOWN.*<http.*/operations/${sms.id}\\|Open in opledger>`),
    );
  });

  it("retries a delivery the receiver answered 500 with the same webhook-id, then records it delivered", async () => {
    await hook();
    receiver.answers.push(500, 503);
    const queued = await sendTestEvent(t.ledger, "oncall", alice, new Date());
    await deliverDue(t.ledger, () => new Date(), fast);
    let row = await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: queued.id } });
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500 });
    expect(row.lastError).toMatch(/answered 500/);
    expect(row.nextAttemptAt).not.toBeNull();
    await deliverAll();
    row = await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: queued.id } });
    expect(row).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 204, lastError: null });
    expect(receiver.received.map((r) => r.status)).toEqual([500, 503, 204]);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([queued.id]));
    // Every try is signed afresh, and each verifies.
    expect(verified(receiver).map((e) => e.type)).toEqual(["webhook.test", "webhook.test", "webhook.test"]);
  });

  it("gives up as the retry gate says: a 400 at once, a 500 when the attempts are spent", async () => {
    await hook();
    receiver.answers.push(400);
    const refused = await sendTestEvent(t.ledger, "oncall", alice, new Date());
    await deliverAll();
    expect(await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: refused.id } })).toMatchObject({
      status: "failed",
      attempts: 1,
      lastStatus: 400,
    });
    receiver.answers.push(500, 500, 500, 500, 500, 500);
    const down = await sendTestEvent(t.ledger, "oncall", alice, new Date());
    await deliverAll();
    const row = await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: down.id } });
    expect(row).toMatchObject({ status: "failed", attempts: fast.policy?.maxAttempts, lastStatus: 500 });
    expect(row.lastError).toMatch(/given up/);
  });

  it("never sends one delivery twice at once from two senders", async () => {
    await hook();
    const queued = await sendTestEvent(t.ledger, "oncall", alice, new Date());
    const second = secondInstance();
    try {
      await Promise.all([
        deliverDue(t.ledger, () => new Date(), { ...fast, owner: "a" }),
        deliverDue(second.ledger, () => new Date(), { ...fast, owner: "b" }),
      ]);
    } finally {
      await second.close();
    }
    expect(receiver.received).toHaveLength(1);
    expect(await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: queued.id } })).toMatchObject({
      status: "delivered",
      attempts: 1,
    });
  });

  it("with no webhook reads no event and keeps the cursor at the head; the first webhook hears what follows", async () => {
    await withContract(t.ledger, "email.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
    const unknownOperation = async (n: number) => {
      const op = await planAndClaim(t.ledger, { tool: "email.send", args: { n } }, at(n * 10));
      await dispatch(t.ledger, op.id, op.fence, at(n * 10 + 1));
      await outcome(t.ledger, op.id, { fence: op.fence, result: "unknown" }, at(n * 10 + 2));
      return op.id;
    };
    await unknownOperation(1);
    expect(await readAuditOnce(t.ledger, at(20))).toEqual({ read: 0, queued: 0, lost: false });
    const cursor = async () => (await t.db.auditCursor.findUniqueOrThrow({ where: { name: "notifications" } })).seq;
    const head = async () => (await t.db.auditChain.findUniqueOrThrow({ where: { id: 1 } })).seq;
    expect(await cursor()).toBe(await head());

    await hook("oncall", ["operation.unknown"]);
    const after = await unknownOperation(3);
    expect(await readAudit(t.ledger, at(40))).toBe(1);
    const [delivery] = await t.db.webhookDelivery.findMany({ where: { webhook: "oncall" } });
    expect(JSON.parse(delivery!.payloadJson)).toMatchObject({ type: "operation.unknown", data: { id: after } });
    expect(await cursor()).toBe(await head());
  });

  it("moves the cursor through every event once, with two readers racing while events are written", async () => {
    await hook("oncall", ["operation.unknown"]);
    await withContract(t.ledger, "email.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
    const second = secondInstance();
    let writing = true;
    const reader = async (l: Ledger) => {
      while (writing) {
        await readAuditOnce(l, new Date(), 3);
        // setImmediate, not a 1 ms timer: a chain of expired timers runs within one timers phase and starved the
        // group commit's setImmediate for seconds (56 s for this test, past its timeout on a loaded CI machine).
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const readers = Promise.all([reader(t.ledger), reader(second.ledger)]);
    try {
      for (let i = 0; i < 8; i++) {
        const op = await planAndClaim(t.ledger, { tool: "email.send", args: { i } }, at(i * 10));
        await dispatch(t.ledger, op.id, op.fence, at(i * 10 + 1));
        await outcome(t.ledger, op.id, { fence: op.fence, result: "unknown" }, at(i * 10 + 2));
      }
    } finally {
      writing = false;
      await readers;
      await second.close();
    }
    await readAudit(t.ledger, new Date());
    const unknownEvents = await t.db.auditEvent.findMany({ where: { toPhase: "UNKNOWN" }, orderBy: { seq: "asc" } });
    expect(unknownEvents).toHaveLength(8);
    const deliveries = await t.db.webhookDelivery.findMany({ where: { webhook: "oncall" } });
    expect(deliveries.map((d) => d.eventKey).sort()).toEqual(unknownEvents.map((e) => `audit:${e.seq}`).sort());
    const head = await t.db.auditChain.findUniqueOrThrow({ where: { id: 1 } });
    expect((await t.db.auditCursor.findUniqueOrThrow({ where: { name: "notifications" } })).seq).toBe(head.seq);
  }, 30_000);
});

describe("a server without the secret", () => {
  it("leaves the delivery to one that has it: no attempt is counted, and the log says why", async () => {
    await hook();
    const queued = await sendTestEvent(t.ledger, "oncall", alice, new Date());
    const without: DeliveryOptions = { ...fast, outbound: { allowPrivate: true, environment: {} } };
    await deliverDue(t.ledger, () => new Date(), without);
    const row = await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: queued.id } });
    expect(row).toMatchObject({ status: "pending", attempts: 0, leaseOwner: null });
    expect(row.lastError).toMatch(/OPLEDGER_SECRET_TEST_HOOK is not set/);
    expect(receiver.received).toHaveLength(0);
    await deliverDue(t.ledger, () => new Date(Date.now() + 6_000), fast);
    expect(await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: queued.id } })).toMatchObject({
      status: "delivered",
      attempts: 1,
    });
  });
});

describe("a webhook delivery's root span", () => {
  const exporter = tracedIntoMemory();

  it("is a trace of its own per attempt: the webhook, the event, the attempt, the HTTP status, the operation", async () => {
    await hook("oncall", ["operation.unknown"]);
    await withContract(t.ledger, "sms.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
    const sms = await planAndClaim(t.ledger, { tool: "sms.send", args: {} }, T0);
    await dispatch(t.ledger, sms.id, sms.fence, at(1));
    await outcome(t.ledger, sms.id, { fence: sms.fence, result: "unknown" }, at(2));
    expect(await readAudit(t.ledger, at(3))).toBe(1);
    receiver.answers.push(500);
    exporter().reset();
    await deliverAll();

    // Each attempt: its root span, and inside it the request's client span (lib/services/outbound/outbound-span.ts).
    const finished = exporter().getFinishedSpans();
    expect(finished.map((s) => s.name)).toEqual([
      "POST",
      "opledger webhook operation.unknown",
      "POST",
      "opledger webhook operation.unknown",
    ]);
    const spans = finished.filter((s) => s.name !== "POST");
    const requests = finished.filter((s) => s.name === "POST");
    const [failed, delivered] = spans;
    expect(requests.map(parentId)).toEqual(spans.map((s) => s.spanContext().spanId));
    expect(requests.map((s) => s.attributes["http.response.status_code"])).toEqual([500, 204]);
    expect(receiver.received.slice(-2).map((r) => r.headers.traceparent)).toEqual(
      requests.map((s) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`),
    );
    const delivery = await t.db.webhookDelivery.findFirstOrThrow();
    // The trace the operation was planned in (opledger's plan span's, as the plan came without a traceparent).
    const { traceId: planned } = await t.db.operation.findUniqueOrThrow({ where: { id: sms.id } });
    expect(planned).toMatch(/^[0-9a-f]{32}$/);
    const common = {
      "opledger.webhook": "oncall",
      "opledger.webhook.delivery_id": delivery.id,
      "opledger.webhook.event": "operation.unknown",
      "opledger.operation.trace_id": planned,
      "opledger.operations": 1,
      "opledger.operation.ids": [sms.id],
    };
    expect(failed!.attributes).toEqual({
      ...common,
      "opledger.webhook.attempt": 1,
      "http.response.status_code": 500,
      "opledger.webhook.outcome": "pending",
    });
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(delivered!.attributes).toEqual({
      ...common,
      "opledger.webhook.attempt": 2,
      "http.response.status_code": 204,
      "opledger.webhook.outcome": "delivered",
    });
    expect(delivered!.status.code).toBe(SpanStatusCode.UNSET);
    for (const span of spans) expect(parentId(span)).toBeUndefined();
    expect(failed!.spanContext().traceId).not.toBe(delivered!.spanContext().traceId);
    expect(failed!.spanContext().traceId).not.toBe(planned);
  });
});
