// The gateway's tools/call in the caller's trace, with the SDK's in-memory exporter and an upstream that records the
// _meta it is sent: the server span `tools/call {tool}`, `execute_tool {tool}` inside it with the operation id, the
// command spans and the client span of each attempt inside that, and the client span's traceparent passed on to the
// upstream; no argument values unless the contract opts in. The trace id is recorded on the operation and attempt.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gatewayToolCall, type GatewayServerContext } from "@/lib/agent-plane/mcp/gateway/gateway-server";
import type { CallOptions, UpstreamCall } from "@/lib/services/upstreams/types";
import { callerTrace } from "@/lib/platform/telemetry/caller-trace";
import { stopTracing } from "@/lib/platform/telemetry/start-tracing";
import { only, parentId, startInMemoryTracing } from "./helpers/in-memory-tracing";
import { agent, withContract } from "./helpers/ledger-fixtures";
import { createTestDb, type TestDb } from "./helpers/test-db";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const AGENT_SPAN = "b7ad6b7169203331";
const SECRET_ARG = "4111-1111-1111-1111";

let exporter: InMemorySpanExporter;
let t: TestDb;
let sent: { tool: string; meta: Record<string, unknown> }[];
let answers: UpstreamCall[];

function upstreams(): GatewayServerContext["upstreams"] {
  return {
    tools: () =>
      Promise.resolve([
        { upstream: "test", gatewayName: "test__charge", tool: { name: "charge", inputSchema: { type: "object" } } },
      ]),
    callUpstreamTool: (_upstream: string, tool: string, _args: Record<string, unknown>, options: CallOptions) => {
      sent.push({ tool, meta: { ...options.meta } });
      return Promise.resolve(
        answers.shift() ?? { outcome: "answered", result: { content: [{ type: "text", text: "ok" }] } },
      );
    },
    unavailable: () => null,
    list: () => [],
    client: () => Promise.resolve("no client in this test"),
  };
}

beforeAll(async () => {
  exporter = await startInMemoryTracing();
});
afterAll(() => stopTracing());
beforeEach(async () => {
  t = await createTestDb();
  sent = [];
  answers = [];
  exporter.reset();
});
afterEach(async () => t.close());

const call = (args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult> =>
  gatewayToolCall(
    {
      ledger: t.ledger,
      actor: agent as GatewayServerContext["actor"],
      upstreams: upstreams(),
      worker: "mcp:test",
      run: "session-1",
      log: () => undefined,
      sleep: () => Promise.resolve(),
    },
    { name: "test__charge", arguments: args, ...(meta ? { _meta: meta } : {}) },
  );

describe("the gateway's spans", () => {
  it("puts tools/call, execute_tool, the commands and each attempt's client span in the caller's trace", async () => {
    await withContract(t.ledger, "test__charge", "IDEMPOTENT", { backoff: { baseMs: 0, maxMs: 0 } });
    answers.push({ outcome: "not_sent", reason: "connection refused" });
    const result = await call(
      { card: SECRET_ARG },
      { traceparent: `00-${TRACE}-${AGENT_SPAN}-01`, tracestate: "agent=1" },
    );
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    const operationId = result._meta?.["opledger/operation"] as string;

    const server = only(exporter, "tools/call test__charge");
    expect(server.kind).toBe(1); // SERVER
    expect(server.spanContext().traceId).toBe(TRACE);
    expect(parentId(server)).toBe(AGENT_SPAN);
    expect(server.attributes).toMatchObject({ "mcp.method.name": "tools/call", "mcp.session.id": "session-1" });
    const tool = only(exporter, "execute_tool test__charge");
    expect(parentId(tool)).toBe(server.spanContext().spanId);
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "test__charge",
      "gen_ai.tool.call.id": operationId,
    });
    const inside = exporter.getFinishedSpans().filter((s) => parentId(s) === tool.spanContext().spanId);
    expect(inside.map((s) => s.name)).toEqual(
      expect.arrayContaining(["opledger plan", "tools/call charge", "opledger outcome", "opledger dispatch"]),
    );
    const clients = exporter.getFinishedSpans().filter((s) => s.name === "tools/call charge");
    expect(
      clients.map((s) => [s.kind, s.attributes["opledger.attempt"], s.attributes["opledger.upstream.outcome"]]),
    ).toEqual([
      [2, 1, "not_sent"],
      [2, 2, "answered"],
    ]);
    // Each attempt's request carries its own client span as the parent, in the caller's trace.
    expect(sent.map((s) => s.meta.traceparent)).toEqual(clients.map((s) => `00-${TRACE}-${s.spanContext().spanId}-01`));
    expect(sent[0]!.meta.tracestate).toBe("agent=1");
    const op = await t.db.operation.findUniqueOrThrow({ where: { id: operationId }, include: { attempts: true } });
    expect(op.traceId).toBe(TRACE);
    expect(op.attempts.map((a) => a.traceId)).toEqual([TRACE, TRACE]);
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => [s.attributes, s.events]))).not.toContain(SECRET_ARG);
  });

  it("carries argument and result values only for a contract with traceArguments: true", async () => {
    await withContract(t.ledger, "test__charge", "IDEMPOTENT", { traceArguments: true });
    await call({ card: SECRET_ARG });
    const client = only(exporter, "tools/call charge");
    expect(client.attributes["gen_ai.tool.call.arguments"]).toBe(JSON.stringify({ card: SECRET_ARG }));
    expect(client.attributes["gen_ai.tool.call.result"]).toContain("ok");
    expect(only(exporter, "opledger plan").attributes["gen_ai.tool.call.arguments"]).toContain(SECRET_ARG);
    // Without a caller's traceparent the call starts a trace of its own, which the operation records.
    const server = only(exporter, "tools/call test__charge");
    expect(parentId(server)).toBeUndefined();
    const op = await t.db.operation.findFirstOrThrow();
    expect(op.traceId).toBe(server.spanContext().traceId);
  });
});

describe("a traceparent in _meta with tracing off", () => {
  it("is recorded on the operation and passed on to the upstream as it came", async () => {
    await stopTracing();
    try {
      await withContract(t.ledger, "test__charge", "IDEMPOTENT");
      const traceparent = `00-${TRACE}-${AGENT_SPAN}-01`;
      const result = await call({}, { traceparent });
      const op = await t.db.operation.findUniqueOrThrow({
        where: { id: result._meta?.["opledger/operation"] as string },
        include: { attempts: true },
      });
      expect(op.traceId).toBe(TRACE);
      expect(op.attempts[0]!.traceId).toBe(TRACE);
      expect(sent[0]!.meta.traceparent).toBe(traceparent);
      expect(exporter.getFinishedSpans()).toEqual([]);
      expect(callerTrace(sent[0]!.meta.traceparent)?.traceId).toBe(TRACE);
    } finally {
      exporter = await startInMemoryTracing();
    }
  });
});
