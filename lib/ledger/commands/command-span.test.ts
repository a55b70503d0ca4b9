// Each API command's span, with the SDK's in-memory exporter: its name, the operation, tool, effect class, attempt,
// phase before and after, the gate's decision and reason; parented to the caller's traceparent; and none of the
// call's argument values.
import type { InMemorySpanExporter, ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { withTrace, type Actor } from "@/lib/ledger/actor";
import { callerTrace } from "@/lib/platform/telemetry/caller-trace";
import { stopTracing } from "@/lib/platform/telemetry/start-tracing";
import { only, parentId, startInMemoryTracing } from "@/tests/helpers/in-memory-tracing";
import { agent, alice, at, otherAgent, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { approveOperation, rejectOperation } from "./approval";
import { dispatchOperation } from "./dispatch";
import { claimLease } from "./lease";
import { reportOutcome } from "./outcome";
import { planOperation } from "./plan";
import { reconcileOperation } from "./reconcile";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const traced: Actor = withTrace(agent, callerTrace(`00-${TRACE}-${CALLER_SPAN}-01`));
const SECRET_ARG = "4111-1111-1111-1111";

let exporter: InMemorySpanExporter;
let t: TestDb;
beforeAll(async () => {
  exporter = await startInMemoryTracing();
});
afterAll(() => stopTracing());
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "email.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
  await withContract(t.ledger, "payments.refund", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
  exporter.reset();
});
afterEach(async () => t.close());

const attrs = (span: ReadableSpan) => span.attributes;

describe("command spans", () => {
  it("names each command's span and carries the operation, the phases and the gate's decision, in the caller's trace", async () => {
    const { operation } = await planOperation(t.ledger, { tool: "email.send", args: { card: SECRET_ARG } }, traced, T0);
    const id = operation.id;
    const { fence } = await claimLease(t.ledger, id, { workerId: "w1", leaseMs: 60_000 }, traced, at(1));
    await dispatchOperation(t.ledger, id, { fence }, traced, at(2));
    await reportOutcome(
      t.ledger,
      id,
      { fence, result: "failed", error: { httpStatus: 503 } },
      traced,
      at(3),
      () => 0.5,
    );
    const refused = await dispatchOperation(t.ledger, id, { fence }, traced, at(4));
    expect("refused" in refused).toBe(true);
    await approveOperation(t.ledger, id, { reason: "customer asked again" }, alice, at(5));

    const plan = only(exporter, "opledger plan");
    expect(plan.spanContext().traceId).toBe(TRACE);
    expect(parentId(plan)).toBe(CALLER_SPAN);
    expect(attrs(plan)).toMatchObject({
      "opledger.command": "plan",
      "opledger.operation.id": id,
      "opledger.tool": "email.send",
      "opledger.effect": "NON_RETRYABLE",
      "opledger.phase.after": "PLANNED",
      "opledger.attempt": 0,
      "opledger.decision": "DISPATCH",
    });
    const claim = only(exporter, "opledger claim");
    expect(attrs(claim)).toMatchObject({ "opledger.phase.before": "PLANNED", "opledger.phase.after": "PLANNED" });
    const [first, second] = exporter.getFinishedSpans().filter((s) => s.name === "opledger dispatch");
    expect(attrs(first!)).toMatchObject({
      "opledger.operation.id": id,
      "opledger.phase.before": "PLANNED",
      "opledger.phase.after": "DISPATCHED",
      "opledger.attempt": 1,
    });
    expect(attrs(second!)).toMatchObject({
      "opledger.phase.before": "AWAITING_APPROVAL",
      "opledger.refusal": "approval_required",
      "opledger.decision": "APPROVAL",
    });
    expect(attrs(second!)["opledger.decision.reason"]).toEqual(expect.any(String));
    const outcome = only(exporter, "opledger outcome");
    expect(attrs(outcome)).toMatchObject({
      "opledger.phase.before": "DISPATCHED",
      "opledger.phase.after": "AWAITING_APPROVAL",
      "opledger.decision": "APPROVAL",
    });
    for (const span of [plan, claim, first!, second!, outcome]) {
      expect(span.spanContext().traceId).toBe(TRACE);
      expect(parentId(span)).toBe(CALLER_SPAN);
    }
    // A person's approval in the console has no caller trace: a trace of its own.
    const approve = only(exporter, "opledger approve");
    expect(approve.spanContext().traceId).not.toBe(TRACE);
    expect(attrs(approve)).toMatchObject({
      "opledger.phase.before": "AWAITING_APPROVAL",
      "opledger.phase.after": "RETRY_SCHEDULED",
    });
    // No argument value without the contract's traceArguments.
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => [s.attributes, s.events]))).not.toContain(SECRET_ARG);
  });

  it("traces reconcile and reject, and records the trace id of opledger's own span when the caller sent none", async () => {
    const { operation } = await planOperation(t.ledger, { tool: "payments.refund", args: {} }, agent, T0);
    const id = operation.id;
    const plan = only(exporter, "opledger plan");
    const row = await t.db.operation.findUniqueOrThrow({ where: { id } });
    expect(row.traceId).toBe(plan.spanContext().traceId);
    expect(parentId(plan)).toBeUndefined();
    const { fence } = await claimLease(t.ledger, id, { workerId: "w1", leaseMs: 60_000 }, traced, at(1));
    await dispatchOperation(t.ledger, id, { fence }, traced, at(2));
    await reportOutcome(t.ledger, id, { fence, result: "unknown" }, traced, at(3));
    await reconcileOperation(t.ledger, id, { outcome: "not_applied", evidence: { looked: "up" } }, alice, at(4));
    expect(attrs(only(exporter, "opledger reconcile"))).toMatchObject({
      "opledger.phase.before": "UNKNOWN",
      "opledger.phase.after": "RECONCILED",
      "opledger.effect": "NON_RETRYABLE",
    });
    const { operation: other } = await planOperation(
      t.ledger,
      { tool: "payments.refund", args: { n: 2 } },
      agent,
      at(5),
    );
    await rejectOperation(t.ledger, other.id, { reason: "not needed" }, agent, at(6));
    expect(attrs(only(exporter, "opledger reject"))).toMatchObject({
      "opledger.operation.id": other.id,
      "opledger.phase.before": "PLANNED",
      "opledger.phase.after": "REJECTED",
    });
  });

  it("marks a refused command's span as an error with its code, and shows nothing of an operation outside the lane", async () => {
    const { operation } = await planOperation(t.ledger, { tool: "email.send", args: {} }, agent, T0);
    await expect(
      claimLease(t.ledger, operation.id, { workerId: "w", leaseMs: 1000 }, otherAgent, at(1)),
    ).rejects.toThrow();
    const claim = only(exporter, "opledger claim");
    expect(claim.status.code).toBe(2);
    expect(attrs(claim)["opledger.refusal"]).toBe("not_found");
    expect(attrs(claim)["opledger.tool"]).toBeUndefined();
  });
});
