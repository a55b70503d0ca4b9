// The run page's timeline with trace ids, on a real database: each drawn operation carries the trace id of the call
// that planned it (none when it came without a traceparent; lib/ledger/reads/run-timeline.ts), and the run page links
// them as runTraces says.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/ledger/actor";
import { planOperation } from "@/lib/ledger/commands/plan";
import { callerTrace } from "@/lib/platform/telemetry/caller-trace";
import { agent, at, withContract } from "@/tests/helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { runTimeline } from "@/lib/ledger/reads/run-timeline";
import { runTraces } from "./trace-link";

const STEP_1 = "4bf92f3577b34da6a3ce929d0e0e4736";
const STEP_2 = "0af7651916cd43dd8448eb211c80319c";

/** The agent's key making a call with its span's traceparent, as the agent plane reads it from the request. */
function tracedAgent(traceId: string): Actor {
  if (agent.type !== "api_key") throw new Error("the fixtures' agent is an API key");
  return { ...agent, trace: callerTrace(`00-${traceId}-00f067aa0ba902b7-01`) };
}

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "search.web", "PURE");
});
afterEach(async () => t.close());

async function plan(runId: string, q: number, actor: Actor, ms: number): Promise<string> {
  const { operation } = await planOperation(t.ledger, { tool: "search.web", args: { q }, runId }, actor, at(ms));
  return operation.id;
}

describe("the run timeline's trace ids", () => {
  it("gives each operation of the run the trace id of the call that planned it", async () => {
    const a = await plan("run-1", 1, tracedAgent(STEP_1), 0);
    const b = await plan("run-1", 2, agent, 100);
    const c = await plan("run-1", 3, tracedAgent(STEP_2), 200);
    await plan("run-2", 4, tracedAgent(STEP_2), 300);

    const timeline = await runTimeline(t.ledger, "run-1", at(1_000));
    expect(timeline.operations.map((op) => [op.id, op.traceId])).toEqual([
      [a, STEP_1],
      [b, null],
      [c, STEP_2],
    ]);
    expect(runTraces(timeline.operations)).toEqual({ kind: "per-operation", traces: 2 });
  });

  it("links the run once when all its traced operations were planned in one trace", async () => {
    await plan("run-1", 1, tracedAgent(STEP_1), 0);
    await plan("run-1", 2, tracedAgent(STEP_1), 100);
    const timeline = await runTimeline(t.ledger, "run-1", at(1_000));
    expect(runTraces(timeline.operations)).toEqual({ kind: "run", traceId: STEP_1 });
  });

  it("answers an unknown run as the ledger's timeline does: not found", async () => {
    await expect(runTimeline(t.ledger, "nope", at(0))).rejects.toMatchObject({ code: "not_found" });
  });
});
