// The sweep pass as a root span on a real database, with the SDK's in-memory exporter: a trace of its own even when
// run inside another span, its counts and the operations it moved, and each move's command span as its child.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withTrace } from "@/lib/ledger/actor";
import { LookupBackoff } from "@/lib/ledger/commands/auto-reconcile";
import { planOperation } from "@/lib/ledger/commands/plan";
import { callerTrace } from "@/lib/platform/telemetry/caller-trace";
import { inSpan } from "@/lib/platform/telemetry/spans";
import { only, parentId, tracedIntoMemory } from "@/tests/helpers/in-memory-tracing";
import { agent, at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, planAndClaim } from "@/tests/helpers/lifecycle";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { sweepOnce } from "./sweep-loop";

const AGENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const traced = withTrace(agent, callerTrace(`00-${AGENT_TRACE}-00f067aa0ba902b7-01`));

const exporter = tracedIntoMemory();
let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "search.web", "REPLAYABLE");
  await withContract(t.ledger, "deploy.run", "NON_RETRYABLE", { approval: "required", approvalTtlMs: 60_000 });
});
afterEach(async () => t.close());

describe("the sweep's root span", () => {
  it("is a trace of its own with what it moved, each move a command span inside it", async () => {
    const lost = await planAndClaim(t.ledger, { tool: "search.web", args: { q: 1 } }, T0, "w1", 1000);
    await dispatch(t.ledger, lost.id, lost.fence, at(1));
    const waiting = (await planOperation(t.ledger, { tool: "deploy.run", args: { v: 1 } }, traced, T0)).operation;
    exporter().reset();

    // Started inside another span (as a request's work could be): still a root.
    await inSpan("outer", {}, () => sweepOnce(t.ledger, new LookupBackoff(), () => at(60_001)));
    const outer = only(exporter(), "outer");
    const sweep = only(exporter(), "opledger sweep");
    expect(parentId(sweep)).toBeUndefined();
    expect(sweep.spanContext().traceId).not.toBe(outer.spanContext().traceId);
    expect(sweep.spanContext().traceId).not.toBe(AGENT_TRACE);
    expect(sweep.links).toEqual([]);
    expect(sweep.attributes).toMatchObject({
      "opledger.sweep.lost_in_flight": 1,
      "opledger.sweep.approvals_expired": 1,
      "opledger.operations": 2,
      "opledger.operation.ids": [lost.id, waiting.id],
    });

    const moved = only(exporter(), "opledger lost_in_flight");
    const expired = only(exporter(), "opledger expire_approval");
    for (const command of [moved, expired]) {
      expect(command.spanContext().traceId).toBe(sweep.spanContext().traceId);
      expect(parentId(command)).toBe(sweep.spanContext().spanId);
    }
    expect(moved.attributes).toMatchObject({
      "opledger.command": "lost_in_flight",
      "opledger.operation.id": lost.id,
      "opledger.phase.before": "DISPATCHED",
      "opledger.phase.after": "UNKNOWN",
    });
    expect(expired.attributes).toMatchObject({
      "opledger.operation.id": waiting.id,
      "opledger.phase.before": "AWAITING_APPROVAL",
      "opledger.phase.after": "EXPIRED",
    });
  });

  it("an idle pass is its root span alone, naming no operation", async () => {
    exporter().reset();
    await sweepOnce(t.ledger, new LookupBackoff(), () => at(1));
    expect(
      exporter()
        .getFinishedSpans()
        .map((s) => s.name),
    ).toEqual(["opledger sweep"]);
    expect(only(exporter(), "opledger sweep").attributes).toEqual({
      "opledger.sweep.lost_in_flight": 0,
      "opledger.sweep.approvals_expired": 0,
      "opledger.operations": 0,
    });
  });
});
