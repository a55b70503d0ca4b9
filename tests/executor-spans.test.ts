// The executor's spans against the real agent plane and ledger, in one process with the SDK's in-memory exporter:
// execute_tool for the call, one span per attempt with the gate's decision as its event, the backoff as its own span;
// the executor's requests carry its traceparent, so the server's command spans join its trace and the operation and
// each attempt record its trace id.
import type { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";
import { createApiKey } from "@/lib/platform/auth/api-keys";
import type { Ledger } from "@/lib/ledger/ledger";
import { runTool } from "@/lib/executor/run-tool";
import { stopTracing } from "@/lib/platform/telemetry/start-tracing";
import { only, parentId, startInMemoryTracing } from "./helpers/in-memory-tracing";
import { withContract } from "./helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "./helpers/test-db";

vi.mock("@/lib/platform/server/startup", () => ({ ensureStarted: () => Promise.resolve() }));
const { startAgentPlane } = await import("./helpers/agent-plane");

let exporter: InMemorySpanExporter;
let t: TestDb;
let key: string;
beforeAll(async () => {
  exporter = await startInMemoryTracing();
});
afterAll(() => stopTracing());
beforeEach(async () => {
  t = await createTestDb();
  (globalThis as unknown as { opledgerLedger?: Ledger }).opledgerLedger = t.ledger;
  const system = { type: "system", id: "system", label: "test" } as const;
  key = (await createApiKey(t.ledger, { name: "agent", scopes: ["agent"] }, system, new Date())).key;
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { backoff: { baseMs: 10, maxMs: 10 } });
  exporter.reset();
});
afterEach(async () => t.close());
const plane = await startAgentPlane();
afterAll(() => plane.close());

it("traces the call, each attempt and its backoff, and the server's commands join the executor's trace", async () => {
  let calls = 0;
  const result = await runTool(
    "payments.charge",
    { amount: 1 },
    () =>
      Promise.resolve(
        ++calls === 1 ? { ok: false, error: { kind: "timeout", httpStatus: 503 } } : { ok: true, providerId: "ch_1" },
      ),
    { client: { baseUrl: plane.url, apiKey: key }, idempotencyKey: "k-1", log: () => undefined },
  );
  expect(result.status).toBe("confirmed");
  const call = only(exporter, "execute_tool payments.charge");
  const traceId = call.spanContext().traceId;
  expect(call.attributes).toMatchObject({
    "gen_ai.tool.name": "payments.charge",
    "gen_ai.tool.call.id": result.operation.id,
  });
  const attempts = exporter.getFinishedSpans().filter((s) => s.name === "opledger.attempt payments.charge");
  expect(
    attempts.map((s) => [s.attributes["opledger.attempt"], s.events.map((e) => e.attributes?.["opledger.decision"])]),
  ).toEqual([
    [1, ["RETRY_SAME_KEY"]],
    [2, ["STOP"]],
  ]);
  for (const span of attempts) expect(parentId(span)).toBe(call.spanContext().spanId);
  const backoff = only(exporter, "opledger.backoff");
  expect(parentId(backoff)).toBe(call.spanContext().spanId);
  // The server's command spans are in the executor's trace, under the executor's span that sent each request.
  const plan = only(exporter, "opledger plan");
  expect(plan.spanContext().traceId).toBe(traceId);
  expect(parentId(plan)).toBe(call.spanContext().spanId);
  const outcomes = exporter.getFinishedSpans().filter((s) => s.name === "opledger outcome");
  expect(outcomes.map((s) => parentId(s))).toEqual(attempts.map((s) => s.spanContext().spanId));
  const op = await t.db.operation.findUniqueOrThrow({
    where: { id: result.operation.id },
    include: { attempts: true },
  });
  expect(op.traceId).toBe(traceId);
  expect(op.attempts.map((a) => a.traceId)).toEqual([traceId, traceId]);
});
