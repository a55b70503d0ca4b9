// Bulk actions on a real database: the exact frozen preview, who may run it, the runner's batches, stale operations,
// cancellation and a job taken over after its runner died.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withTrace, type Actor } from "@/lib/ledger/actor";
import { callerTrace } from "@/lib/platform/telemetry/caller-trace";
import { parentId, tracedIntoMemory } from "@/tests/helpers/in-memory-tracing";
import { alice, at, bob, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { alicesKey, bootstrap, viewer } from "@/tests/helpers/ledger-model-authority";
import { agent } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { reconcileBody } from "@/lib/agent-plane/schemas";
import { planOperation } from "../commands/plan";
import { reconcileOperation } from "../commands/reconcile";
import { LedgerError } from "../errors";
import { newId } from "../ids";
import { actOnItem } from "./act";
import { cancelBulk, getBulkJob, runBulk } from "./job";
import { previewBulk } from "./preview";
import { bulkPreviewSchema, MAX_BULK_OPERATIONS, PREVIEW_TTL_MS, type BulkPreviewRequest } from "./request";
import { PREVIEW_ITEMS_KEPT_MS, pruneExpiredPreviews } from "./retention";
import { BulkRunner } from "./runner";

let t: TestDb;
let provider: Server;
let base: string;
/** What the lookup provider answers per key: a status makes a record, null a 404, a number that HTTP error. */
let records: Map<string, string | null | number>;

beforeEach(async () => {
  records = new Map();
  provider = createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? "").split("/").pop() ?? "");
    const record = records.get(key) ?? null;
    if (typeof record === "number") res.writeHead(record).end("{}");
    else if (record === null) res.writeHead(404, { "content-type": "application/json" }).end("{}");
    else {
      // An empty status is left out: an answer that proves nothing.
      const body = record === "" ? { id: `p_${key}` } : { id: `p_${key}`, status: record };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    }
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  t = await createTestDb();
  const lookup = {
    method: "lookup" as const,
    urlTemplate: `${base}/sends/{idempotencyKey}`,
    timeoutMs: 1000,
    statusField: "status",
    appliedValues: ["sent"],
    auto: false,
  };
  // The persons the jobs act as: a job stops when its person may no longer act.
  for (const person of [alice, bob]) {
    await t.db.user.create({
      data: { id: person.id, email: person.label, name: person.label, role: "operator", passwordHash: "-" },
    });
  }
  await t.db.user.create({
    data: { id: viewer.id, email: viewer.label, name: viewer.label, role: "viewer", passwordHash: "-" },
  });
  await withContract(t.ledger, "email.send", "IDEMPOTENT", { reconcile: lookup, keyRetentionMs: null });
  await withContract(t.ledger, "sms.send", "NON_RETRYABLE", { reconcile: lookup, idempotencyKey: "required" });
  await withContract(t.ledger, "crm.update", "REPLAYABLE", { idempotencyKey: "required" });
  await withContract(t.ledger, "wire.send", "NON_RETRYABLE", { idempotencyKey: "unsupported", approval: "required" });
});

afterEach(async () => {
  await t.close();
  provider.closeAllConnections();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
});

const LOOPBACK = { allowPrivate: true };
const NOW = at(60_000);

/** An operation left UNKNOWN after one attempt. */
async function unknownOp(tool: string, key: string, ms = 0): Promise<string> {
  const { id, fence } = await planAndClaim(t.ledger, { tool, args: { key }, idempotencyKey: key }, at(ms));
  await dispatch(t.ledger, id, fence, at(ms + 1));
  await outcome(t.ledger, id, { fence, result: "unknown", error: { kind: "timeout" } }, at(ms + 2));
  return id;
}

/** An operation waiting for a person, planned by `by`. */
async function waitingOp(key: string, by: Actor = agent): Promise<string> {
  const { operation } = await planOperation(t.ledger, { tool: "wire.send", args: { key } }, by, at(10));
  return operation.id;
}

function request(body: unknown): BulkPreviewRequest {
  return bulkPreviewSchema.parse(body);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "resolved",
    (e: unknown) => (e instanceof LedgerError ? e.code : `unexpected: ${String(e)}`),
  );
}

function runner(owner = "r1", batchSize = 50): BulkRunner {
  return new BulkRunner(t.ledger, { owner, batchSize, outbound: LOOPBACK });
}

async function runToEnd(r: BulkRunner, now = NOW): Promise<void> {
  for (let i = 0; i < 1000; i++) if ((await r.step(now)) === "finished") return;
  throw new Error("the job did not finish");
}

async function phaseOf(id: string): Promise<string> {
  return (await t.db.operation.findUniqueOrThrow({ where: { id } })).phase;
}

describe("previewBulk", () => {
  it("lists the exact set grouped by tool and class, with what each gets and what is skipped and why", async () => {
    const emails = [await unknownOp("email.send", "e1"), await unknownOp("email.send", "e2")];
    const sms = await unknownOp("sms.send", "s1");
    const crm = await unknownOp("crm.update", "c1");
    const { id: confirmed, fence } = await planAndClaim(
      t.ledger,
      { tool: "email.send", args: {}, idempotencyKey: "e3" },
      at(5),
    );
    await dispatch(t.ledger, confirmed, fence, at(6));
    await outcome(t.ledger, confirmed, { fence, result: "confirmed" }, at(7));

    const preview = await previewBulk(
      t.ledger,
      request({ action: "lookup_reconcile", filter: { createdAfter: T0.toISOString() } }),
      alice,
      NOW,
    );
    expect(preview.matched).toBe(5);
    expect(preview.items.map((i) => i.id).sort()).toEqual([...emails, sms].sort());
    expect(preview.items.every((i) => i.willDo === "lookup")).toBe(true);
    expect(preview.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: crm, why: "no_lookup" }),
        expect.objectContaining({ id: confirmed, why: "already_decided" }),
      ]),
    );
    expect(preview.byTool).toEqual({ "email.send": 3, "sms.send": 1, "crm.update": 1 });
    expect(preview.byClass).toEqual({ IDEMPOTENT: 3, NON_RETRYABLE: 1, REPLAYABLE: 1 });
    expect(preview.groups).toContainEqual({ tool: "email.send", effect: "IDEMPOTENT", acting: 2, skipped: 1 });
    expect(preview.warning).toBeNull();
    expect(new Date(preview.expiresAt).getTime()).toBe(NOW.getTime() + PREVIEW_TTL_MS);
    const stored = await t.db.bulkItem.findMany({ where: { bulkId: preview.previewId } });
    expect(stored).toHaveLength(5);
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { subjectId: preview.previewId } });
    expect(audit).toMatchObject({ subjectType: "bulk", action: "bulk.previewed", actorId: alice.id });
  });

  it("says what the gate does next, and warns before granting attempts over NON_RETRYABLE tools", async () => {
    const ids = [await waitingOp("w1"), await waitingOp("w2")];
    const preview = await previewBulk(t.ledger, request({ action: "approve", ids }), bob, NOW);
    expect(preview.items).toHaveLength(2);
    expect(preview.items[0]).toMatchObject({ willDo: "approve", then: "DISPATCH" });
    expect(preview.warning).toMatchObject({ code: "non_retryable_effects", count: 2 });

    const unknown = await unknownOp("sms.send", "s9");
    const retry = await previewBulk(
      t.ledger,
      request({ action: "reconcile", ids: [unknown], outcome: "not_applied", evidence: "log", approveRetry: true }),
      bob,
      NOW,
    );
    expect(retry.items[0]).toMatchObject({ willDo: "reconcile_not_applied" });
    expect(retry.warning?.count).toBe(1);
    const noRetry = await previewBulk(
      t.ledger,
      request({ action: "reconcile", ids: [unknown], outcome: "not_applied", evidence: "log" }),
      bob,
      NOW,
    );
    expect(noRetry.warning).toBeNull();
    expect(noRetry.items[0]?.then).toBe("APPROVAL");
  });

  it("skips, per operation, what four-eyes forbids this person and an expired request", async () => {
    const mine = await waitingOp("mine", alicesKey);
    const theirs = await waitingOp("theirs");
    const preview = await previewBulk(t.ledger, request({ action: "approve", ids: [mine, theirs] }), alice, NOW);
    expect(preview.items.map((i) => i.id)).toEqual([theirs]);
    expect(preview.skipped).toEqual([expect.objectContaining({ id: mine, why: "four_eyes" })]);
    const late = await previewBulk(t.ledger, request({ action: "approve", ids: [theirs] }), bob, at(25 * 3_600_000));
    expect(late.skipped).toEqual([expect.objectContaining({ id: theirs, why: "approval_expired" })]);
  });

  it("refuses bad input with a clear code and stores nothing", async () => {
    await unknownOp("email.send", "e1");
    expect(
      await codeOf(previewBulk(t.ledger, request({ action: "reject", filter: { tool: "nope" } }), alice, NOW)),
    ).toBe("nothing_matches");
    expect(await codeOf(previewBulk(t.ledger, request({ action: "reject", ids: ["01NOPE"] }), alice, NOW))).toBe(
      "nothing_matches",
    );
    // Approving is the human gate: a key with no person may not, and neither may an agent key or a viewer act in bulk.
    const unknowns = request({ action: "approve", filter: { phase: "UNKNOWN" } });
    expect(await codeOf(previewBulk(t.ledger, unknowns, bootstrap, NOW))).toBe("person_required");
    expect(await codeOf(previewBulk(t.ledger, request({ action: "reject", filter: {} }), agent, NOW))).toBe(
      "person_required",
    );
    expect(await codeOf(previewBulk(t.ledger, request({ action: "reject", filter: {} }), viewer, NOW))).toBe(
      "person_required",
    );
    expect(await t.db.bulkAction.count()).toBe(0);
    for (const bad of [
      { action: "reject" },
      { action: "reject", filter: {}, ids: ["x"] },
      { action: "reconcile", filter: {} },
      { action: "approve", filter: {}, outcome: "applied" },
      { action: "reconcile", filter: {}, outcome: "applied", evidence: "x", approveRetry: true },
      { action: "reject", filter: { phase: "NOPE" } },
      { action: "reject", filter: { createdBefore: "yesterday" } },
      { action: "reject", filter: {}, extra: 1 },
    ]) {
      expect(bulkPreviewSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("takes the evidence a single reconcile takes: any JSON value, by the same definition", () => {
    for (const evidence of [{ provider: { id: "ch_1", status: "failed" } }, ["log", 2], "log", 0, false, null]) {
      const bulk = { action: "reconcile", ids: ["x"], outcome: "not_applied", evidence };
      expect(bulkPreviewSchema.safeParse(bulk).success, JSON.stringify(evidence)).toBe(true);
      expect(reconcileBody.safeParse({ outcome: "not_applied", evidence }).success).toBe(true);
    }
    const without = { action: "reconcile", ids: ["x"], outcome: "not_applied" };
    expect(bulkPreviewSchema.safeParse(without).error?.issues).toMatchObject([{ path: ["evidence"] }]);
    expect(reconcileBody.safeParse({ outcome: "not_applied" }).success).toBe(false);
  });

  it(`refuses more than ${MAX_BULK_OPERATIONS} operations and asks to narrow the filter`, async () => {
    const rows = Array.from({ length: MAX_BULK_OPERATIONS + 1 }, (_, i) => ({
      id: newId(),
      tool: "crm.update",
      contractVersion: 1,
      effect: "REPLAYABLE",
      idempotencyKey: `k${i}`,
      argsJson: "{}",
      argsHash: "h",
      phase: "UNKNOWN",
    }));
    for (let i = 0; i < rows.length; i += 1000) await t.db.operation.createMany({ data: rows.slice(i, i + 1000) });
    const error = await previewBulk(
      t.ledger,
      request({ action: "reject", filter: { tool: "crm.update" } }),
      alice,
      NOW,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerError);
    expect(error).toMatchObject({ code: "too_many_matches", status: 422 });
    expect((error as Error).message).toContain("narrow the filter");
  }, 60_000);
});

describe("runBulk", () => {
  it("runs a preview once, only for the principal that made it, only while it is frozen", async () => {
    const id = await unknownOp("email.send", "e1");
    const preview = await previewBulk(t.ledger, request({ action: "reject", ids: [id] }), alice, NOW);
    const run = { previewId: preview.previewId, reason: "outage" };
    expect(await codeOf(runBulk(t.ledger, { previewId: "01UNKNOWN", reason: "x" }, alice, NOW))).toBe("not_found");
    expect(await codeOf(runBulk(t.ledger, run, bob, NOW))).toBe("not_found");
    expect(await codeOf(runBulk(t.ledger, run, alicesKey, NOW))).toBe("not_found");
    expect(await codeOf(runBulk(t.ledger, run, alice, new Date(NOW.getTime() + PREVIEW_TTL_MS)))).toBe(
      "preview_expired",
    );
    const { jobId } = await runBulk(t.ledger, run, alice, at(61_000));
    expect(await codeOf(runBulk(t.ledger, run, alice, at(62_000)))).toBe("already_run");
    const started = await t.db.auditEvent.findFirstOrThrow({ where: { subjectId: jobId, action: "bulk.started" } });
    expect(started).toMatchObject({ subjectType: "bulk", actorId: alice.id, reason: "outage" });
    expect(await phaseOf(id)).toBe("UNKNOWN");
  });
});

describe("the bulk runner", () => {
  it("acts on exactly the previewed set in batches, each through the single action's command and audit", async () => {
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push(await waitingOp(`w${i}`));
    const preview = await previewBulk(
      t.ledger,
      request({ action: "approve", filter: { tool: "wire.send" } }),
      bob,
      NOW,
    );
    const later = await waitingOp("after-the-preview");
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "provider is back" }, bob, NOW);
    const r = runner("r1", 3);
    expect(await r.step(NOW)).toBe("batch");
    expect((await getBulkJob(t.ledger, jobId, {})).acted).toBe(3);
    await runToEnd(r);
    const job = await getBulkJob(t.ledger, jobId, {});
    expect(job).toMatchObject({ status: "done", total: 7, acted: 7, skipped: 0, stale: 0, failed: 0, pending: 0 });
    expect(job.items.every((i) => i.result === "acted")).toBe(true);
    for (const id of ids) {
      expect(await phaseOf(id)).toBe("PLANNED");
      const approved = await t.db.auditEvent.findFirstOrThrow({
        where: { subjectId: id, action: "operation.approved" },
      });
      expect(approved).toMatchObject({ actorId: bob.id, reason: `provider is back (bulk ${jobId})` });
    }
    expect(await phaseOf(later)).toBe("AWAITING_APPROVAL");
    const finished = await t.db.auditEvent.findFirstOrThrow({ where: { subjectId: jobId, action: "bulk.finished" } });
    expect(JSON.parse(finished.data ?? "{}")).toMatchObject({ status: "done", total: 7, acted: 7 });
    expect(await r.step(NOW)).toBe("idle");
  });

  it("reports operations changed since the preview as stale and leaves them untouched; skipped ones are counted", async () => {
    const ids = [
      await unknownOp("crm.update", "c1"),
      await unknownOp("crm.update", "c2"),
      await unknownOp("crm.update", "c3"),
    ];
    const { id: done, fence } = await planAndClaim(
      t.ledger,
      { tool: "crm.update", args: {}, idempotencyKey: "c4" },
      at(5),
    );
    await dispatch(t.ledger, done, fence, at(6));
    await outcome(t.ledger, done, { fence, result: "confirmed" }, at(7));
    const preview = await previewBulk(
      t.ledger,
      request({
        action: "reconcile",
        filter: { tool: "crm.update" },
        outcome: "not_applied",
        evidence: "provider log",
      }),
      alice,
      NOW,
    );
    expect(preview).toMatchObject({ matched: 4 });
    await reconcileOperation(t.ledger, ids[1]!, { outcome: "applied", providerId: "p1", evidence: "bob" }, bob, NOW);
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "outage" }, alice, NOW);
    await runToEnd(runner());
    const job = await getBulkJob(t.ledger, jobId, {});
    expect(job).toMatchObject({ status: "done", total: 4, acted: 2, skipped: 1, stale: 1, failed: 0 });
    expect(job.acted + job.skipped + job.stale + job.failed).toBe(preview.matched);
    expect(job.items.find((i) => i.id === ids[1])).toMatchObject({ result: "stale" });
    expect(await t.db.operation.findUniqueOrThrow({ where: { id: ids[1] } })).toMatchObject({ evidence: "applied" });
    expect(await phaseOf(ids[0]!)).toBe("RECONCILED");
    expect(await t.db.auditEvent.count({ where: { subjectId: ids[1], reason: { contains: jobId } } })).toBe(0);
  });

  it("records a command's refusal as failed with its code", async () => {
    const id = await waitingOp("w1");
    const preview = await previewBulk(t.ledger, request({ action: "approve", ids: [id] }), bob, NOW);
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "go" }, bob, NOW);
    // Past the request's deadline when the job runs: the command refuses, the operation is unchanged.
    await runToEnd(runner(), at(25 * 3_600_000));
    const job = await getBulkJob(t.ledger, jobId, {});
    expect(job).toMatchObject({ failed: 1, acted: 0 });
    expect(job.items[0]?.detail).toMatch(/^approval_expired/);
  });

  it("reconciles what the provider lookup proves and leaves the rest UNKNOWN, reported", async () => {
    const sent = await unknownOp("email.send", "k-sent");
    const missing = await unknownOp("email.send", "k-missing");
    const vague = await unknownOp("sms.send", "k-vague");
    const down = await unknownOp("sms.send", "k-down");
    records.set("k-sent", "sent");
    records.set("k-vague", "");
    records.set("k-down", 503);
    const preview = await previewBulk(
      t.ledger,
      request({ action: "lookup_reconcile", filter: { phase: "UNKNOWN" } }),
      alice,
      NOW,
    );
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "outage over" }, alice, NOW);
    await runToEnd(runner());
    const job = await getBulkJob(t.ledger, jobId, {});
    expect(job).toMatchObject({ total: 4, acted: 2, skipped: 1, failed: 1, stale: 0 });
    const sentOp = await t.db.operation.findUniqueOrThrow({ where: { id: sent } });
    expect(sentOp).toMatchObject({ phase: "RECONCILED", evidence: "applied", providerId: "p_k-sent" });
    expect(await t.db.operation.findUniqueOrThrow({ where: { id: missing } })).toMatchObject({
      phase: "RECONCILED",
      evidence: "not_applied",
    });
    expect(await phaseOf(vague)).toBe("UNKNOWN");
    expect(await phaseOf(down)).toBe("UNKNOWN");
    expect(job.items.find((i) => i.id === down)?.detail).toMatch(/^lookup_failed/);
    const audit = await t.db.auditEvent.findFirstOrThrow({
      where: { subjectId: sent, action: "operation.reconciled" },
    });
    expect(audit).toMatchObject({ actorId: alice.id });
    expect(audit.reason).toContain(`(bulk ${jobId})`);
  });

  it("stops between batches when cancelled; what was done stays done", async () => {
    for (let i = 0; i < 6; i++) await waitingOp(`w${i}`);
    const preview = await previewBulk(t.ledger, request({ action: "reject", filter: { tool: "wire.send" } }), bob, NOW);
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "wrong recipients" }, bob, NOW);
    const r = runner("r1", 2);
    expect(await r.step(NOW)).toBe("batch");
    expect(await codeOf(cancelBulk(t.ledger, jobId, { reason: "stop" }, agent, NOW))).toBe("person_required");
    const asked = await cancelBulk(t.ledger, jobId, { reason: "stop, wrong filter" }, alice, NOW);
    expect(asked).toMatchObject({ status: "running", cancelRequested: true });
    expect(await r.step(NOW)).toBe("finished");
    const job = await getBulkJob(t.ledger, jobId, {});
    expect(job).toMatchObject({ status: "cancelled", acted: 2, pending: 4 });
    expect(await t.db.operation.count({ where: { phase: "REJECTED" } })).toBe(2);
    expect(await codeOf(cancelBulk(t.ledger, jobId, { reason: "again" }, alice, NOW))).toBe("job_finished");
    const cancelled = await t.db.auditEvent.findFirstOrThrow({ where: { subjectId: jobId, action: "bulk.cancelled" } });
    expect(cancelled).toMatchObject({ actorId: alice.id, reason: "stop, wrong filter" });
    const finished = await t.db.auditEvent.findFirstOrThrow({ where: { subjectId: jobId, action: "bulk.finished" } });
    expect(JSON.parse(finished.data ?? "{}")).toMatchObject({ status: "cancelled", acted: 2, notRun: 4 });
  });

  it("is taken over by another runner once the first one's lease runs out, and never run twice", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await waitingOp(`w${i}`));
    const reject = request({ action: "reject", filter: { tool: "wire.send" } });
    const preview = await previewBulk(t.ledger, reject, bob, NOW);
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "cleanup" }, bob, NOW);
    const first = new BulkRunner(t.ledger, { owner: "dies", batchSize: 2, leaseMs: 30_000 });
    expect(await first.step(NOW)).toBe("batch");
    // It acted on the next item and died before recording it: the operation changed, with this job's audit record.
    const items = await t.db.bulkItem.findMany({
      where: { bulkId: preview.previewId, result: null },
      orderBy: { position: "asc" },
    });
    const next = await t.db.operation.findUniqueOrThrow({ where: { id: items[0]!.operationId } });
    await actOnItem(t.ledger, { jobId, request: reject, reason: "cleanup", actor: bob }, next, NOW);

    const second = runner("takes-over", 2);
    expect(await second.step(at(70_000))).toBe("idle");
    await runToEnd(second, at(95_000));
    const view = await getBulkJob(t.ledger, jobId, {});
    expect(view).toMatchObject({ status: "done", total: 5, acted: 5, stale: 0 });
    for (const id of ids) {
      expect(await phaseOf(id)).toBe("REJECTED");
      expect(await t.db.auditEvent.count({ where: { subjectId: id, action: "operation.rejected" } })).toBe(1);
    }
    expect(await first.step(at(96_000))).toBe("idle");
  });

  it("stops, acting on nothing more, once the person it acts as is disabled or made a viewer", async () => {
    for (let i = 0; i < 4; i++) await waitingOp(`w${i}`);
    const preview = await previewBulk(t.ledger, request({ action: "reject", filter: { tool: "wire.send" } }), bob, NOW);
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "x" }, bob, NOW);
    const r = runner("r1", 2);
    expect(await r.step(NOW)).toBe("batch");
    await t.db.user.update({ where: { id: bob.id }, data: { role: "viewer" } });
    expect(await r.step(NOW)).toBe("finished");
    const job = await getBulkJob(t.ledger, jobId, {});
    expect(job).toMatchObject({ status: "cancelled", acted: 2, pending: 2 });
    const finished = await t.db.auditEvent.findFirstOrThrow({ where: { subjectId: jobId, action: "bulk.finished" } });
    const data = JSON.parse(finished.data ?? "{}") as { stoppedBecause?: string };
    expect(data.stoppedBecause).toContain("may no longer act");
  });

  it("pages the job's items", async () => {
    for (let i = 0; i < 5; i++) await waitingOp(`w${i}`);
    const preview = await previewBulk(t.ledger, request({ action: "reject", filter: { tool: "wire.send" } }), bob, NOW);
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "x" }, bob, NOW);
    const first = await getBulkJob(t.ledger, jobId, { limit: 3 });
    expect(first.items).toHaveLength(3);
    const rest = await getBulkJob(t.ledger, jobId, { cursor: Number(first.nextCursor), limit: 3 });
    expect(rest.items).toHaveLength(2);
    expect(rest.nextCursor).toBeNull();
    expect(await codeOf(getBulkJob(t.ledger, "01NOJOB", {}))).toBe("not_found");
  });
});

describe("pruneExpiredPreviews", () => {
  it("deletes the items of previews never run, an hour after they expired, and keeps run ones and their rows", async () => {
    const unrun = await previewBulk(t.ledger, request({ action: "reject", ids: [await waitingOp("p1")] }), alice, NOW);
    const run = await previewBulk(t.ledger, request({ action: "reject", ids: [await waitingOp("p2")] }), bob, NOW);
    const fresh = await previewBulk(
      t.ledger,
      request({ action: "reject", ids: [await waitingOp("p3")] }),
      alice,
      at(60_000 + PREVIEW_TTL_MS),
    );
    await runBulk(t.ledger, { previewId: run.previewId, reason: "no" }, bob, NOW);
    const items = async (id: string) => t.db.bulkItem.count({ where: { bulkId: id } });

    const justExpired = new Date(NOW.getTime() + PREVIEW_TTL_MS + PREVIEW_ITEMS_KEPT_MS - 1);
    expect(await pruneExpiredPreviews(t.ledger, justExpired)).toBe(0);
    const later = new Date(NOW.getTime() + PREVIEW_TTL_MS + PREVIEW_ITEMS_KEPT_MS + 1);
    expect(await pruneExpiredPreviews(t.ledger, later)).toBe(1);
    expect([await items(unrun.previewId), await items(run.previewId), await items(fresh.previewId)]).toEqual([0, 1, 1]);
    // The preview's row and its audit record stay; running it is still refused as expired.
    expect(await t.db.bulkAction.count({ where: { id: unrun.previewId } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { subjectId: unrun.previewId, action: "bulk.previewed" } })).toBe(1);
    expect(await codeOf(runBulk(t.ledger, { previewId: unrun.previewId, reason: "late" }, alice, later))).toBe(
      "preview_expired",
    );
    expect(await pruneExpiredPreviews(t.ledger, later)).toBe(0);
  });
});

describe("a bulk job's root spans", () => {
  const exporter = tracedIntoMemory();

  it("makes each batch a trace of its own, linked to the request that started the job, the commands inside", async () => {
    const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
    const CALLER_SPAN = "b7ad6b7169203331";
    const key = withTrace(alicesKey, callerTrace(`00-${CALLER_TRACE}-${CALLER_SPAN}-01`));
    await t.db.apiKey.create({
      data: {
        id: alicesKey.id,
        name: "alice-bot",
        prefix: "opl_a",
        hash: "-",
        scopes: "agent,operator",
        createdBy: alice.id,
        ownerUserId: alice.id,
      },
    });
    const ids = [await waitingOp("w0"), await waitingOp("w1"), await waitingOp("w2")];
    const preview = await previewBulk(t.ledger, request({ action: "approve", ids }), key, NOW);
    const { jobId } = await runBulk(t.ledger, { previewId: preview.previewId, reason: "provider is back" }, key, NOW);
    const r = runner("r1", 2);
    exporter().reset();
    await runToEnd(r);
    expect(await r.step(NOW)).toBe("idle");

    const roots = exporter()
      .getFinishedSpans()
      .filter((s) => s.name === "opledger bulk approve");
    expect(roots).toHaveLength(3);
    for (const root of roots) {
      expect(parentId(root)).toBeUndefined();
      expect(root.spanContext().traceId).not.toBe(CALLER_TRACE);
      expect(root.links.map((l) => l.context)).toMatchObject([{ traceId: CALLER_TRACE, spanId: CALLER_SPAN }]);
      expect(root.attributes).toMatchObject({ "opledger.bulk.job_id": jobId, "opledger.bulk.action": "approve" });
    }
    const [first, second, last] = roots;
    expect(first!.attributes).toMatchObject({
      "opledger.bulk.items": 2,
      "opledger.bulk.acted": 2,
      "opledger.operations": 2,
      "opledger.operation.ids": ids.slice(0, 2),
    });
    expect(second!.attributes).toMatchObject({ "opledger.bulk.items": 1, "opledger.operation.ids": ids.slice(2) });
    expect(last!.attributes).toMatchObject({ "opledger.bulk.ended": "done", "opledger.operations": 0 });
    const approvals = exporter()
      .getFinishedSpans()
      .filter((s) => s.name === "opledger approve");
    expect(approvals).toHaveLength(3);
    for (const approval of approvals) {
      const root = [first!, second!].find((s) => s.spanContext().spanId === parentId(approval));
      expect(root?.spanContext().traceId).toBe(approval.spanContext().traceId);
    }
  });
});
