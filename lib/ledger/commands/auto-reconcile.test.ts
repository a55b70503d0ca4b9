// Auto-reconcile on a real database against a local HTTP provider: which operations it looks up, what it records, and
// what it leaves alone.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { alice, at, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import type { EffectClass } from "@/lib/retry-gate/types";
import { AUTO_RECONCILER, autoReconcile, lookupForOperation, LookupBackoff } from "./auto-reconcile";
import type { ReconcileSettings } from "@/lib/ledger/outbound/provider-lookup";
import type { OutboundOptions } from "@/lib/services/outbound/send";
import { getOperation } from "@/lib/ledger/reads/operations";
import { reconcileOperation } from "./reconcile";
import { only, parentId, tracedIntoMemory } from "@/tests/helpers/in-memory-tracing";

/** What the provider answers per key: a status string makes a record, null a 404, a number that HTTP error. */
let records: Map<string, string | null | number>;
let requests: string[];
/** Runs before the provider answers a request: a test's way to act while a lookup is out. */
let onRequest: (() => Promise<unknown>) | null;
let provider: Server;
let base: string;
let t: TestDb;

/** The provider's answer for one key, from `records`. */
function answer(key: string, res: ServerResponse): void {
  const record = records.get(key) ?? null;
  if (typeof record === "number") {
    res.writeHead(record).end("{}");
  } else if (record === null) {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
  } else {
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ id: `dep_${key}`, status: record }));
  }
}

beforeEach(async () => {
  records = new Map();
  requests = [];
  onRequest = null;
  provider = createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? "").split("/").pop() ?? "");
    requests.push(key);
    void (onRequest?.() ?? Promise.resolve()).then(() => answer(key, res));
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  t = await createTestDb();
});

afterEach(async () => {
  await t.close();
  provider.closeAllConnections();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
});

/** The provider listens on loopback: reachable as with OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on. */
const LOOPBACK: OutboundOptions = { allowPrivate: true };

function lookup(overrides: Partial<ReconcileSettings> = {}): ReconcileSettings {
  return {
    method: "lookup",
    urlTemplate: `${base}/deployments/{idempotencyKey}`,
    timeoutMs: 1000,
    statusField: "status",
    appliedValues: ["rolling_out", "live"],
    auto: true,
    ...overrides,
  };
}

async function tool(name: string, effect: EffectClass, reconcile: ReconcileSettings | null): Promise<void> {
  await withContract(t.ledger, name, effect, { idempotencyKey: "required", reconcile, keyRetentionMs: null });
}

/** An operation left UNKNOWN at `at(ms)` after one attempt. */
async function unknownOp(toolName: string, key: string, ms = 0): Promise<string> {
  const { id, fence } = await planAndClaim(t.ledger, { tool: toolName, args: { key }, idempotencyKey: key }, at(ms));
  await dispatch(t.ledger, id, fence, at(ms + 1));
  await outcome(t.ledger, id, { fence, result: "unknown", error: { kind: "timeout" } }, at(ms + 2));
  return id;
}

const LATER = at(60_000);

describe("autoReconcile", () => {
  it("records an effect the provider has as applied, by the system, with the evidence and provider id", async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    const id = await unknownOp("deploy.release", "tok-1");
    records.set("tok-1", "live");
    const report = await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK });
    expect(report).toEqual({ looked: 1, applied: 1, notApplied: 0, undecided: 0, failed: 0 });
    const op = await getOperation(t.ledger, id, LATER);
    expect(op).toMatchObject({
      phase: "RECONCILED",
      evidence: "applied",
      providerId: "dep_tok-1",
      decision: { action: "STOP" },
    });
    const audit = op.audit.find((a) => a.action === "operation.reconciled");
    expect(audit).toMatchObject({ actorType: "system", fromPhase: "UNKNOWN", toPhase: "RECONCILED" });
    expect(audit?.actorId).toBe(AUTO_RECONCILER.id);
    expect(audit?.reason).toContain('status is "live"');
    expect(op.evidenceDetail).toMatchObject({
      evidence: { ok: true, status: 200, applied: true, providerId: "dep_tok-1" },
    });
  });

  it("records a 404 as not applied once the grace period is over, and the gate then allows the retry", async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    const id = await unknownOp("deploy.release", "tok-2");
    expect((await autoReconcile(t.ledger, at(5_000), { outbound: LOOPBACK })).notApplied).toBe(0);
    expect((await getOperation(t.ledger, id, at(5_000))).phase).toBe("UNKNOWN");
    expect((await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK })).notApplied).toBe(1);
    const op = await getOperation(t.ledger, id, LATER);
    expect(op).toMatchObject({ phase: "RECONCILED", evidence: "not_applied", decision: { action: "RETRY_SAME_KEY" } });
  });

  it('asks about a "not applied" once during the grace period, then again when it ends', async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    const id = await unknownOp("deploy.release", "tok-grace");
    const backoff = new LookupBackoff();
    for (const ms of [1_000, 2_000, 5_000, 9_000])
      await autoReconcile(t.ledger, at(ms), { backoff, outbound: LOOPBACK });
    expect(requests).toEqual(["tok-grace"]);
    expect((await autoReconcile(t.ledger, at(10_002), { backoff, outbound: LOOPBACK })).notApplied).toBe(1);
    expect(requests).toEqual(["tok-grace", "tok-grace"]);
    expect((await getOperation(t.ledger, id, at(10_002))).phase).toBe("RECONCILED");
  });

  it("leaves the operation alone when the lookup fails or proves nothing, and backs off before asking again", async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    const down = await unknownOp("deploy.release", "tok-down");
    const vague = await unknownOp("deploy.release", "tok-vague", 10);
    records.set("tok-down", 503);
    records.set("tok-vague", "queued-somewhere");
    await withContract(t.ledger, "deploy.release", "REPLAYABLE", {
      idempotencyKey: "required",
      keyRetentionMs: null,
      reconcile: lookup({ appliedValues: [] }),
    });
    const backoff = new LookupBackoff(10_000);
    expect(await autoReconcile(t.ledger, LATER, { backoff, outbound: LOOPBACK })).toEqual({
      looked: 2,
      applied: 0,
      notApplied: 0,
      undecided: 1,
      failed: 1,
    });
    for (const id of [down, vague]) expect((await getOperation(t.ledger, id, LATER)).phase).toBe("UNKNOWN");
    expect((await autoReconcile(t.ledger, at(65_000), { backoff, outbound: LOOPBACK })).looked).toBe(0);
    expect((await autoReconcile(t.ledger, at(71_000), { backoff, outbound: LOOPBACK })).looked).toBe(2);
  });

  it("looks up only REPLAYABLE and IDEMPOTENT operations whose current contract has an automatic lookup", async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    await tool("payments.charge", "IDEMPOTENT", lookup());
    await tool("payments.manual", "IDEMPOTENT", lookup({ auto: false }));
    await tool("crm.update", "UNKNOWN", lookup());
    await tool("email.send", "NON_RETRYABLE", lookup());
    await tool("notes.manual", "REPLAYABLE", { method: "manual" });
    for (const [name, key] of [
      ["deploy.release", "a"],
      ["payments.charge", "b"],
      ["payments.manual", "c"],
      ["crm.update", "d"],
      ["email.send", "e"],
      ["notes.manual", "f"],
    ] as const) {
      records.set(key, "live");
      await unknownOp(name, key);
    }
    expect((await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK })).applied).toBe(2);
    expect(requests.sort()).toEqual(["a", "b"]);
  });

  it("uses the current contract version, so turning the lookup on helps operations planned before", async () => {
    await tool("deploy.release", "REPLAYABLE", { method: "manual" });
    const id = await unknownOp("deploy.release", "tok-old");
    records.set("tok-old", "live");
    expect((await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK })).looked).toBe(0);
    await tool("deploy.release", "REPLAYABLE", lookup());
    expect((await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK })).applied).toBe(1);
    expect((await getOperation(t.ledger, id, LATER)).phase).toBe("RECONCILED");
  });

  it("does at most `limit` lookups per call, oldest first", async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    for (let i = 0; i < 5; i++) {
      records.set(`k${i}`, "live");
      await unknownOp("deploy.release", `k${i}`, i * 10);
    }
    expect((await autoReconcile(t.ledger, LATER, { limit: 3, outbound: LOOPBACK })).applied).toBe(3);
    expect(requests.sort()).toEqual(["k0", "k1", "k2"]);
    expect((await autoReconcile(t.ledger, LATER, { limit: 3, outbound: LOOPBACK })).applied).toBe(2);
  });

  it("steps aside when a person reconciled the operation while the lookup was out", async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    const id = await unknownOp("deploy.release", "tok-race");
    records.set("tok-race", "live");
    // The person's reconciliation lands while the provider is answering the lookup.
    onRequest = () =>
      reconcileOperation(
        t.ledger,
        id,
        { outcome: "not_applied", evidence: { note: "checked by hand" }, reason: "by hand" },
        alice,
        LATER,
      );
    expect(await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK })).toMatchObject({ looked: 1, applied: 0 });
    const op = await getOperation(t.ledger, id, LATER);
    expect(op).toMatchObject({ phase: "RECONCILED", evidence: "not_applied" });
    expect(op.audit.filter((a) => a.action === "operation.reconciled")).toHaveLength(1);
  });
});

describe("lookupForOperation", () => {
  it("runs the lookup for a person and changes nothing", async () => {
    await tool("payments.charge", "IDEMPOTENT", lookup({ auto: false }));
    const id = await unknownOp("payments.charge", "pay-1");
    records.set("pay-1", "live");
    const evidence = await lookupForOperation(t.ledger, id, LATER, LOOPBACK);
    expect(evidence).toMatchObject({ ok: true, applied: true, providerId: "dep_pay-1" });
    expect((await getOperation(t.ledger, id, LATER)).phase).toBe("UNKNOWN");
  });

  it("says so when the tool has no lookup", async () => {
    await tool("notes.manual", "REPLAYABLE", { method: "manual" });
    const id = await unknownOp("notes.manual", "n-1");
    expect(await lookupForOperation(t.ledger, id, LATER, LOOPBACK)).toMatchObject({ ok: false });
  });
});

describe("autoReconcile's root span", () => {
  const exporter = tracedIntoMemory();

  it("is a trace of its own with its counts and the operations it settled, each reconcile its child", async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    const applied = await unknownOp("deploy.release", "tok-1");
    const failed = await unknownOp("deploy.release", "tok-2", 10);
    records.set("tok-1", "live");
    records.set("tok-2", 503);
    exporter().reset();
    await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK });
    const root = only(exporter(), "opledger auto_reconcile");
    expect(parentId(root)).toBeUndefined();
    // Each lookup's request is a client span inside the run (lib/services/outbound/outbound-span.ts).
    const requests = exporter()
      .getFinishedSpans()
      .filter((s) => s.name === "GET");
    expect(requests.map(parentId)).toEqual([root.spanContext().spanId, root.spanContext().spanId]);
    expect(root.attributes).toMatchObject({
      "opledger.auto_reconcile.looked": 2,
      "opledger.auto_reconcile.applied": 1,
      "opledger.auto_reconcile.failed": 1,
      "opledger.operations": 1,
      "opledger.operation.ids": [applied],
    });
    expect(root.attributes["opledger.operation.ids"]).not.toContain(failed);
    const reconcile = only(exporter(), "opledger reconcile");
    expect(reconcile.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(parentId(reconcile)).toBe(root.spanContext().spanId);
    expect(reconcile.attributes).toMatchObject({
      "opledger.operation.id": applied,
      "opledger.phase.after": "RECONCILED",
    });

    exporter().reset();
    records.set("tok-2", 503);
    await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK, backoff: new LookupBackoff(60_000) });
    const second = exporter().getFinishedSpans();
    // A lookup that failed settles nothing: the run is its root span and the lookup's request, naming no operation.
    expect(second.map((s) => s.name)).toEqual(["GET", "opledger auto_reconcile"]);
    const [request, run] = second;
    expect(parentId(request!)).toBe(run!.spanContext().spanId);
    expect(request!.attributes["error.type"]).toBe("503");
    expect(run!.attributes).toMatchObject({ "opledger.operations": 0, "opledger.auto_reconcile.failed": 1 });
  });

  it("opens no span when nothing is due", async () => {
    await tool("deploy.release", "REPLAYABLE", lookup());
    exporter().reset();
    await autoReconcile(t.ledger, LATER, { outbound: LOOPBACK });
    expect(exporter().getFinishedSpans()).toEqual([]);
  });
});
