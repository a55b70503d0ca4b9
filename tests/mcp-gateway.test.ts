// The gateway's tools/list and tools/call on a real database against the test upstream, a real MCP server over stdio
// that counts its effects durably: never a second effect without a person.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { approveOperation, rejectOperation } from "@/lib/ledger/commands/approval";
import { expireApprovals } from "@/lib/ledger/commands/expire-approvals";
import { recordDelivery } from "@/lib/ledger/commands/repeated-call";
import { confirmToolDefinition } from "@/lib/ledger/commands/confirm-tool-definition";
import { forceBreaker } from "@/lib/ledger/dependencies/dependencies";
import { LedgerError } from "@/lib/ledger/errors";
import { TASK_POLL_MS, taskResult, WITHDRAWN_REASON } from "@/lib/agent-plane/mcp/gateway/call-task";
import {
  gatewayServer,
  gatewayToolCall,
  gatewayTools,
  type GatewayServerContext,
} from "@/lib/agent-plane/mcp/gateway/gateway-server";
import { serveMcp } from "@/lib/agent-plane/mcp/gateway/mcp-endpoint";
import { ToolListChanges } from "@/lib/agent-plane/mcp/gateway/tool-list-changes";
import { openUpstreams, type Upstreams } from "@/lib/services/upstreams/registry";
import { readCalls, readEffects, writeControl } from "../e2e/mcp/test-upstream-effects";
import { agent, alice, withContract } from "./helpers/ledger-fixtures";
import type { Actor } from "@/lib/ledger/actor";
import { createTestDb, type TestDb } from "./helpers/test-db";

const ROOT = path.resolve(__dirname, "..");
// The first call starts the upstream (a TypeScript program run by tsx: a few seconds on a loaded machine).
vi.setConfig({ testTimeout: 60_000 });
let t: TestDb;
let dir: string;
let upstreams: Upstreams;
let ctx: GatewayServerContext;
const lines: string[] = [];

function files() {
  return {
    effects: path.join(dir, "effects.jsonl"),
    calls: path.join(dir, "calls.jsonl"),
    control: path.join(dir, "control.json"),
  };
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-gateway-"));
  const upstreamsFile = path.join(dir, "upstreams.json");
  fs.writeFileSync(
    upstreamsFile,
    JSON.stringify({
      upstreams: {
        test: {
          command: process.execPath,
          args: ["--import", "tsx", path.join(ROOT, "e2e/mcp/test-upstream.ts")],
          cwd: ROOT,
          env: {
            TEST_UPSTREAM_EFFECTS: "OPLEDGER_SECRET_T_EFFECTS",
            TEST_UPSTREAM_CALLS: "OPLEDGER_SECRET_T_CALLS",
            TEST_UPSTREAM_CONTROL: "OPLEDGER_SECRET_T_CONTROL",
          },
        },
      },
    }),
  );
  const f = files();
  // One upstream process for the file (it restarts by itself after exit_after_commit); each test starts from empty
  // records.
  upstreams = openUpstreams(upstreamsFile, {
    environment: {
      OPLEDGER_SECRET_T_EFFECTS: f.effects,
      OPLEDGER_SECRET_T_CALLS: f.calls,
      OPLEDGER_SECRET_T_CONTROL: f.control,
    },
    watchIntervalMs: 0,
    log: () => undefined,
    restartBackoff: { baseMs: 10, maxMs: 50 },
  });
});

afterAll(async () => {
  await upstreams.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  t = await createTestDb();
  for (const file of Object.values(files())) fs.rmSync(file, { force: true });
  lines.length = 0;
  ctx = {
    ledger: t.ledger,
    actor: agent as GatewayServerContext["actor"],
    upstreams,
    worker: "mcp:test",
    run: "run-1",
    log: (line) => lines.push(line),
  };
});

afterEach(async () => {
  await t.close();
});

const effects = () => readEffects(files().effects);
const calls = () => readCalls(files().calls);
const call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  gatewayToolCall(ctx, { name, arguments: args, ...(meta ? { _meta: meta } : {}) });
const codeOf = (r: CallToolResult) => r._meta?.["opledger/code"];
const operationOf = (r: CallToolResult) => r._meta?.["opledger/operation"] as string;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

/** The answer, recorded as delivered to its client in full (what the endpoint does once the response finished). */
async function delivered(answer: CallToolResult): Promise<CallToolResult> {
  await recordDelivery(t.ledger, operationOf(answer), agent, new Date());
  return answer;
}

async function phaseOf(id: string): Promise<string> {
  return (await t.db.operation.findUniqueOrThrow({ where: { id } })).phase;
}

describe("tools/list", () => {
  it("lists only the tools with a contract, annotated from the contract and not from the upstream", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const tools = await gatewayTools(ctx);
    expect(tools.map((tool) => tool.name)).toEqual(["test__charge"]);
    expect(tools[0]?.annotations).toEqual({ destructiveHint: true, idempotentHint: false });
    expect(tools[0]?.description).toMatch(/opledger: a NON_RETRYABLE tool/);
    expect(tools[0]?.execution).toEqual({ taskSupport: "optional" });
  });
});

describe("tools/call", () => {
  it("answers the same call from the ledger until its answer was delivered; then it is a new call", async () => {
    await withContract(t.ledger, "test__put_record", "IDEMPOTENT", { idempotencyKey: "optional" });
    await withContract(t.ledger, "test__lookup", "PURE");
    const put = (value: string) => call("test__put_record", { id: "s", value });
    const read = () => call("test__lookup", { id: "s" });
    const v1 = await put("v1");
    // Not delivered (the client went away before the answer was written): the same call is its retry.
    const retried = await put("v1");
    expect(retried._meta?.["opledger/replayed"]).toBe(true);
    expect(operationOf(retried)).toBe(operationOf(v1));
    await delivered(retried);
    expect(textOf(await delivered(await read()))).toBe("s = v1");
    await delivered(await put("v2"));
    // A read after a write reads again, and writing the old value back writes it.
    expect(textOf(await delivered(await read()))).toBe("s = v2");
    const again = await delivered(await put("v1"));
    expect(again._meta?.["opledger/replayed"]).toBeUndefined();
    expect(textOf(await read())).toBe("s = v1");
    expect(effects().map((e) => e.args.value)).toEqual(["v1", "v2", "v1"]);
    const repeat = await t.db.operation.findUniqueOrThrow({ where: { id: operationOf(again) } });
    expect(repeat).toMatchObject({ repeatOf: operationOf(v1), phase: "CONFIRMED", via: "mcp", runId: "run-1" });
    expect(repeat.idempotencyKey).toMatch(/^mcp:[0-9a-f]{64}~000000002$/);
    const first = await t.db.operation.findUniqueOrThrow({ where: { id: operationOf(v1) } });
    expect(first.deliveredAt).not.toBeNull();
  });

  it("holds a NON_RETRYABLE repeat of a delivered success for a person; approved, it is sent exactly once", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const args = { customer: "c-1", amount: 5 };
    const first = await delivered(await call("test__charge", args));
    expect(first.isError).toBeFalsy();
    const held = await call("test__charge", { amount: 5, customer: "c-1" });
    expect(codeOf(held)).toBe("suspected_duplicate");
    expect(held._meta?.["opledger/repeatOf"]).toBe(operationOf(first));
    expect(textOf(held)).toMatch(/same as an earlier one whose answer you already got/);
    expect(await phaseOf(operationOf(held))).toBe("AWAITING_APPROVAL");
    // The model looping on it changes nothing: the same held operation, nothing sent.
    expect(operationOf(await call("test__charge", args))).toBe(operationOf(held));
    expect(effects()).toHaveLength(1);
    await approveOperation(t.ledger, operationOf(held), { reason: "a second charge is meant" }, alice, new Date());
    // The lease the held call took was released when it answered, so the call made again runs at once.
    const ran = await delivered(await call("test__charge", args));
    expect(ran.isError).toBeFalsy();
    expect(operationOf(ran)).toBe(operationOf(held));
    expect(effects()).toHaveLength(2);
    expect(codeOf(await call("test__charge", args))).toBe("suspected_duplicate");
    expect(effects()).toHaveLength(2);
    const audit = await t.db.auditEvent.findMany({ where: { subjectId: operationOf(held) }, orderBy: { id: "asc" } });
    expect(audit.map((e) => e.action)).toContain("operation.lease_released");
  });

  it("explicit keys and templates keep their meaning: the same key is answered from the ledger after delivery", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { keyFrom: "charge:{customer}" });
    const first = await delivered(await call("test__charge", { customer: "k-1", amount: 1 }));
    const templated = await call("test__charge", { customer: "k-1", amount: 1 });
    expect(templated._meta?.["opledger/replayed"]).toBe(true);
    const keyed = await delivered(
      await call("test__charge", { customer: "k-2", amount: 1 }, { "opledger/idempotencyKey": "mine" }),
    );
    const again = await call("test__charge", { customer: "k-2", amount: 1 }, { "opledger/idempotencyKey": "mine" });
    expect(again._meta?.["opledger/replayed"]).toBe(true);
    expect([operationOf(templated), operationOf(again)]).toEqual([operationOf(first), operationOf(keyed)]);
    expect(effects()).toHaveLength(2);
  });

  it("leases each call under a worker id of its own, below the instance's", async () => {
    await withContract(t.ledger, "test__lookup", "PURE");
    const a = await delivered(await call("test__lookup", { id: "w" }));
    const b = await call("test__lookup", { id: "w" });
    const workers = await t.db.attempt.findMany({
      where: { operationId: { in: [operationOf(a), operationOf(b)] } },
      select: { workerId: true },
    });
    expect(workers).toHaveLength(2);
    for (const { workerId } of workers) expect(workerId).toMatch(/^mcp:test:[0-9A-Z]{26}$/);
    expect(workers[0]?.workerId).not.toBe(workers[1]?.workerId);
  });

  it("refuses a tool without a contract before anything reaches the upstream", async () => {
    const answer = await call("test__charge", { customer: "c-1", amount: 5 });
    expect(answer.isError).toBe(true);
    expect(codeOf(answer)).toBe("no_contract");
    expect(calls()).toHaveLength(0);
    expect(await t.db.operation.count()).toBe(0);
  });

  it("refuses arguments that fail the upstream's schema, and an unknown tool, planning nothing", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    await withContract(t.ledger, "test__nothing", "PURE");
    expect(codeOf(await call("test__charge", { customer: 7 }))).toBe("invalid_arguments");
    expect(codeOf(await call("test__nothing", {}))).toBe("unknown_tool");
    expect(await t.db.operation.count()).toBe(0);
    expect(calls()).toHaveLength(0);
  });

  it("turns an answer that never came into UNKNOWN, and refuses the same call again without forwarding it", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { timeoutMs: 1000 });
    writeControl(files().control, { charge: "hang_after_commit" });
    const lost = await call("test__charge", { customer: "c-2", amount: 9 });
    expect(codeOf(lost)).toBe("outcome_unknown");
    expect(textOf(lost)).toMatch(/Do not call it again/);
    expect(await phaseOf(operationOf(lost))).toBe("UNKNOWN");
    writeControl(files().control, {});
    const again = await call("test__charge", { customer: "c-2", amount: 9 });
    expect(codeOf(again)).toBe("outcome_unknown");
    expect(effects()).toHaveLength(1);
    expect(calls()).toHaveLength(1);
  });

  it("the same call again while the first is at the upstream waits for it, and both get the one answer", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    writeControl(files().control, { charge: "slow:800" });
    const args = { customer: "c-9", amount: 3 };
    const first = call("test__charge", args);
    await vi.waitFor(() => expect(calls()).toHaveLength(1), { timeout: 10_000, interval: 20 });
    const [second, third] = await Promise.all([call("test__charge", args), call("test__charge", args)]);
    const answered = await first;
    expect(answered.isError).toBeFalsy();
    expect(await phaseOf(operationOf(answered))).toBe("CONFIRMED");
    for (const again of [second, third]) {
      expect(again._meta?.["opledger/replayed"]).toBe(true);
      expect(again.content).toEqual(answered.content);
    }
    expect(effects()).toHaveLength(1);
    expect(calls()).toHaveLength(1);
  });

  it("an upstream that exits after committing leaves one effect and an UNKNOWN operation", async () => {
    await withContract(t.ledger, "test__put_record", "IDEMPOTENT", { idempotencyKey: "optional" });
    writeControl(files().control, { put_record: "exit_after_commit" });
    const lost = await call("test__put_record", { id: "r-1", value: "v" });
    expect(codeOf(lost)).toBe("outcome_unknown");
    writeControl(files().control, {});
    expect(codeOf(await call("test__put_record", { id: "r-1", value: "v" }))).toBe("outcome_unknown");
    expect(effects()).toHaveLength(1);
  });

  it("classifies a tool's error answer by the contract: fatal stops, transient is retried within the call", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    writeControl(files().control, { charge: "is_error" });
    const failed = await call("test__charge", { customer: "c-3", amount: 1 });
    expect(codeOf(failed)).toBe("failed");
    expect(textOf(failed)).toMatch(/test upstream|error/i);
    expect(await phaseOf(operationOf(failed))).toBe("FAILED");

    await withContract(t.ledger, "test__lookup", "PURE", { toolError: "transient", backoff: { baseMs: 1, maxMs: 5 } });
    writeControl(files().control, { lookup: "is_error" });
    const retried = await call("test__lookup", { id: "x" });
    expect(codeOf(retried)).toBe("approval_required");
    expect(calls().filter((c) => c.tool === "lookup")).toHaveLength(3);
    expect(lines.filter((l) => l.includes("test__lookup attempt"))).toHaveLength(3);
  });

  it("treats a tool error as an unknown outcome when the contract says a failed call may have had its effect", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { toolError: "unknown" });
    writeControl(files().control, { charge: "is_error_after_commit" });
    const answer = await call("test__charge", { customer: "c-4", amount: 1 });
    expect(codeOf(answer)).toBe("outcome_unknown");
    expect(await phaseOf(operationOf(answer))).toBe("UNKNOWN");
  });

  it("refuses a key reused with other arguments (keyFrom template) without forwarding", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { keyFrom: "charge:{customer}" });
    await call("test__charge", { customer: "c-5", amount: 1 });
    const reused = await call("test__charge", { customer: "c-5", amount: 2 });
    expect(codeOf(reused)).toBe("idempotency_key_reused");
    expect(effects()).toHaveLength(1);
  });

  it("holds a call that needs a person, and runs it once when called again after approval", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { approval: "required" });
    const held = await call("test__charge", { customer: "c-6", amount: 3 });
    expect(codeOf(held)).toBe("approval_required");
    expect(calls()).toHaveLength(0);
    await expect(approveOperation(t.ledger, operationOf(held), { reason: "ok" }, agent, new Date())).rejects.toThrow(
      LedgerError,
    );
    await approveOperation(t.ledger, operationOf(held), { reason: "checked" }, alice, new Date());
    const ran = await call("test__charge", { customer: "c-6", amount: 3 });
    expect(ran.isError).toBeFalsy();
    expect(effects()).toHaveLength(1);
  });

  it("sends the operation's one key with every attempt, so an upstream that dedupes by key converges", async () => {
    await withContract(t.ledger, "test__put_record", "IDEMPOTENT", {
      idempotencyKey: "optional",
      toolError: "transient",
      backoff: { baseMs: 1, maxMs: 5 },
    });
    const sent: unknown[] = [];
    ctx = {
      ...ctx,
      upstreams: {
        ...upstreams,
        callUpstreamTool: (upstream, tool, args, options) => {
          sent.push(options.meta);
          return upstreams.callUpstreamTool(upstream, tool, args, options);
        },
      },
    };
    writeControl(files().control, { put_record: "fail_before_commit" });
    const answer = await call("test__put_record", { id: "k-1", value: "v" }, { "opledger/trace": "t-1" });
    const op = await t.db.operation.findUniqueOrThrow({ where: { id: operationOf(answer) } });
    expect(sent).toHaveLength(3);
    for (const meta of sent) {
      expect(meta).toEqual({
        "opledger/trace": "t-1",
        "opledger/idempotencyKey": op.idempotencyKey,
        "opledger/operation": op.id,
      });
    }
  });

  it("takes a run allowance from _meta: the gateway's run stops retrying when it is spent", async () => {
    await withContract(t.ledger, "test__lookup", "PURE", {
      toolError: "transient",
      maxAttempts: 10,
      backoff: { baseMs: 1, maxMs: 5 },
    });
    writeControl(files().control, { lookup: "is_error" });
    const bad = await call("test__lookup", { id: "y" }, { "opledger/runAllowance": { maxRetries: -1 } });
    expect(codeOf(bad)).toBe("invalid_arguments");
    expect(calls()).toHaveLength(0);

    const stopped = await call("test__lookup", { id: "y" }, { "opledger/runAllowance": { maxRetries: 1 } });
    expect(codeOf(stopped)).toBe("failed");
    expect(calls().filter((c) => c.tool === "lookup")).toHaveLength(2);
    expect(JSON.stringify(stopped._meta?.["opledger/decision"])).toContain(
      "the run run-1 has used its allowance of 1 retry across its operations",
    );
    const allowance = await t.db.runAllowance.findUniqueOrThrow({ where: { runId: "run-1" } });
    expect(allowance).toMatchObject({ keyId: agent.id, maxRetries: 1, retriesUsed: 1 });
    expect(allowance.exhaustedAt).not.toBeNull();
  });

  it("answers the same key again with the run allowance's sentence, not the failed phase's general one", async () => {
    await withContract(t.ledger, "test__lookup", "PURE", {
      toolError: "transient",
      maxAttempts: 10,
      backoff: { baseMs: 1, maxMs: 5 },
    });
    writeControl(files().control, { lookup: "is_error" });
    const meta = { "opledger/runAllowance": { maxRetries: 1 }, "opledger/idempotencyKey": "lookup-y" };
    const stopped = await call("test__lookup", { id: "y" }, meta);
    expect(codeOf(stopped)).toBe("failed");
    const again = await call("test__lookup", { id: "y" }, meta);
    expect(operationOf(again)).toBe(operationOf(stopped));
    expect(calls().filter((c) => c.tool === "lookup")).toHaveLength(2);
    expect(JSON.stringify(again._meta?.["opledger/decision"])).toContain(
      "the run run-1 has used its allowance of 1 retry across its operations",
    );
  });

  it("takes the client's key from _meta", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const a = await call("test__charge", { customer: "c-7", amount: 1 }, { "opledger/idempotencyKey": "k-1" });
    const op = await t.db.operation.findUniqueOrThrow({ where: { id: operationOf(a) } });
    expect(op.idempotencyKey).toBe("k-1");
  });
});

describe("pinned tools: a tool that changes after a person classified it is not called", () => {
  const descriptionOf = async (name: string) =>
    (await upstreams.tools()).find((t) => t.gatewayName === name)?.tool.description;
  const auditOf = async (action: string) =>
    t.db.auditEvent.findMany({ where: { subjectType: "contract", subjectId: "test__charge", action } });
  const admin: Actor = { type: "user", id: "ada", label: "ada@example.test", role: "admin" };
  const reason = "the test upstream only reworded the tool";

  it("pins the definition at first sight; a changed one is not listed nor called until an admin confirms it", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    expect((await gatewayTools(ctx)).map((tool) => tool.name)).toEqual(["test__charge"]);
    expect(await auditOf("contract.tool_pinned")).toHaveLength(1);
    try {
      writeControl(files().control, { changedTools: ["charge"] });
      await vi.waitFor(async () => expect(await descriptionOf("test__charge")).toMatch(/Changed by the test/), {
        timeout: 10_000,
        interval: 50,
      });
      expect(await gatewayTools(ctx)).toEqual([]);
      const refused = await call("test__charge", { customer: "p-1", amount: 1 });
      expect(codeOf(refused)).toBe("tool_changed");
      expect(textOf(refused)).toMatch(/changed since a person classified it/);
      expect(codeOf(await call("test__charge", { customer: "p-1", amount: 1 }))).toBe("tool_changed");
      expect(calls()).toHaveLength(0);
      expect(await t.db.operation.count()).toBe(0);
      // The change is recorded once (the webhook event), however often it is seen.
      expect(await auditOf("contract.tool_changed")).toHaveLength(1);
      const pin = await t.db.toolPin.findUniqueOrThrow({ where: { tool: "test__charge" } });
      expect(JSON.parse(pin.changedDefinition ?? "{}")).toMatchObject({
        description: expect.stringMatching(/Changed/) as unknown,
      });
      const confirm = (hash: string) =>
        confirmToolDefinition(t.ledger, "test__charge", { contractVersion: 1, hash, reason }, admin, new Date());
      await expect(confirm("stale")).rejects.toThrow(/changed again/);
      expect(await confirm(pin.changedHash ?? "")).toEqual({ tool: "test__charge", version: 2 });
      expect((await gatewayTools(ctx)).map((tool) => tool.name)).toEqual(["test__charge"]);
      expect((await call("test__charge", { customer: "p-1", amount: 1 })).isError).toBeFalsy();
      expect(await auditOf("contract.tool_confirmed")).toMatchObject([{ actorId: admin.id, reason }]);
      // Planned under the version the confirmation made.
      expect(await t.db.operation.findFirstOrThrow()).toMatchObject({ contractVersion: 2 });
    } finally {
      writeControl(files().control, {});
      await vi.waitFor(async () => expect(await descriptionOf("test__charge")).not.toMatch(/Changed by the test/), {
        timeout: 10_000,
        interval: 50,
      });
    }
  });
});

describe("/mcp on a Node server (serveMcp): the lean tools/call, the SDK for the rest, and when an answer was delivered", () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const changes = new ToolListChanges(t.ledger, upstreams);
      void serveMcp(req, res, { ledger: t.ledger, actor: ctx.actor, upstreams, changes, now: new Date() });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const HEADERS = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": "run-1",
    "mcp-protocol-version": "2025-11-25",
  };

  /** A tools/call as an MCP client posts it. */
  function posted(args: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
    return postedMessage(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test__charge", arguments: args } },
      { signal },
    );
  }

  function postedMessage(
    message: unknown,
    options: { signal?: AbortSignal; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    return fetch(url, {
      method: "POST",
      headers: { ...HEADERS, ...options.headers },
      body: JSON.stringify(message),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  const resultOf = async (response: Response) => ((await response.json()) as { result: CallToolResult }).result;

  async function sdkClient(): Promise<Client> {
    const client = new Client({ name: "serve-mcp-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  }

  it("an SDK client initializes, lists and calls; the call's outcome marks it delivered, and the same call again is new", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const client = await sdkClient();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["test__charge"]);
    const args = { customer: "n-1", amount: 3 };
    const answer = (await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
    expect(answer.isError).toBeFalsy();
    const op = await t.db.operation.findUniqueOrThrow({ where: { id: operationOf(answer) } });
    expect(op.phase).toBe("CONFIRMED");
    expect(op.deliveredAt).not.toBeNull();
    // Planned, claimed and dispatched in one transaction; the outcome (with the delivery) in a second.
    const audit = await t.db.auditEvent.findMany({ where: { subjectId: op.id }, orderBy: { id: "asc" } });
    expect(audit.map((e) => e.action)).toEqual([
      "operation.planned",
      "operation.lease_claimed",
      "operation.authorized",
      "operation.dispatched",
      "operation.confirmed",
    ]);
    expect(new Set(audit.slice(0, 4).map((e) => e.createdAt.getTime())).size).toBe(1);
    const repeat = (await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
    expect(codeOf(repeat)).toBe("suspected_duplicate");
    expect(effects()).toHaveLength(1);
    await client.close();
  });

  it("answers a refusal on the lean path exactly as the SDK's Server answers it in a batch", async () => {
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "test__nothing", arguments: {} } };
    const lean = await postedMessage(call);
    expect(lean.status).toBe(200);
    expect(lean.headers.get("content-type")).toBe("application/json");
    expect(lean.headers.get("cache-control")).toBe("no-store, no-transform");
    // A batch of one goes to the SDK's Server, which answers it as a single response: the same answer (the SDK
    // re-parses the result, which orders its keys by its schema).
    const sdk = await postedMessage([call]);
    expect(sdk.status).toBe(200);
    expect(await lean.json()).toEqual(await sdk.json());
    const invalid = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { arguments: {} } };
    const leanInvalid = await (await postedMessage(invalid)).text();
    // The SDK's Protocol parses the request before the Server's own check: InternalError, with zod's message.
    expect(JSON.parse(leanInvalid)).toMatchObject({
      error: { code: -32603, message: expect.stringMatching(/expected string/) as unknown },
    });
    expect(leanInvalid).toBe(await (await postedMessage([invalid])).text());
  });

  it("leaves what the transport refuses to the SDK: its statuses, codes and messages", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test__charge", arguments: {} } };
    const notAccepted = await postedMessage(call, { headers: { accept: "application/json" } });
    expect(notAccepted.status).toBe(406);
    const wrongType = await postedMessage(call, { headers: { "content-type": "text/plain" } });
    expect(wrongType.status).toBe(415);
    const oldVersion = await postedMessage(call, { headers: { "mcp-protocol-version": "1999-01-01" } });
    expect(oldVersion.status).toBe(400);
    expect(((await oldVersion.json()) as { error: { message: string } }).error.message).toMatch(
      /Unsupported protocol version/,
    );
    const foreign = await postedMessage(call, { headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("content-type")).toBe("application/problem+json");
    expect((await fetch(url, { method: "PUT" })).status).toBe(405);
    expect((await fetch(url, { method: "DELETE" })).status).toBe(200);
    const malformed = await fetch(url, { method: "POST", headers: HEADERS, body: "{not json" });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it("opens the listening stream (GET) at once, though nothing is sent on it yet", async () => {
    const stop = new AbortController();
    const stream = await fetch(url, {
      headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25" },
      signal: stop.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    stop.abort();
  });

  it("a client gone before the answer gets the stored result when it calls again; a delivered one is a new call", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const args = { customer: "d-1", amount: 2 };
    writeControl(files().control, { charge: "slow:600" });
    // The client goes away while the upstream works: the answer is never written out.
    const gone = new AbortController();
    const lost = posted(args, gone.signal).catch(() => null);
    await vi.waitFor(() => expect(calls()).toHaveLength(1), { timeout: 10_000, interval: 20 });
    gone.abort();
    expect(await lost).toBeNull();
    await vi.waitFor(() => expect(effects()).toHaveLength(1), { timeout: 10_000, interval: 20 });
    writeControl(files().control, {});
    const retried = await resultOf(await posted(args));
    expect(retried._meta?.["opledger/replayed"]).toBe(true);
    const id = operationOf(retried);
    await vi.waitFor(async () =>
      expect((await t.db.operation.findUniqueOrThrow({ where: { id } })).deliveredAt).not.toBeNull(),
    );
    expect(effects()).toHaveLength(1);
    const repeat = await resultOf(await posted(args));
    expect(codeOf(repeat)).toBe("suspected_duplicate");
    expect(repeat._meta?.["opledger/repeatOf"]).toBe(id);
    expect(effects()).toHaveLength(1);
  });

  it("an answer to a request its client cancelled (the SDK's abort) is not delivered: the call again is its retry", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const args = { customer: "d-2", amount: 1 };
    writeControl(files().control, { charge: "slow:600" });
    const answering = posted(args);
    await vi.waitFor(() => expect(calls()).toHaveLength(1), { timeout: 10_000, interval: 20 });
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "aborted" } };
    expect((await postedMessage(cancel)).status).toBe(202);
    // The connection stays open and the answer is written out, but the client ignores it.
    const ignored = await resultOf(await answering);
    writeControl(files().control, {});
    const retried = await resultOf(await posted(args));
    expect(retried._meta?.["opledger/replayed"]).toBe(true);
    expect(operationOf(retried)).toBe(operationOf(ignored));
    expect(effects()).toHaveLength(1);
  });
});

describe("refusals of an operation that cannot run, none of them forwarded", () => {
  it("an open breaker fails fast", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { dependency: "billing" });
    await forceBreaker(t.ledger, "billing", { state: "open", reason: "provider outage" }, alice, new Date());
    const refused = await call("test__charge", { customer: "b-1", amount: 1 });
    expect(codeOf(refused)).toBe("breaker_open");
    expect(textOf(refused)).toMatch(/unavailable/);
    expect(calls()).toHaveLength(0);
  });

  it("a breaker opened on payments-api gives the model that name, since when, and when it is tried again", async () => {
    await withContract(t.ledger, "test__charge", "IDEMPOTENT", { dependency: "payments-api" });
    const openedAt = new Date(Date.now() - 1000);
    await t.db.dependency.update({
      where: { name: "payments-api" },
      data: { state: "open", openedAt, consecutiveFailures: 5, version: { increment: 1 } },
    });
    const refused = await call("test__charge", { customer: "p-1", amount: 1 });
    expect(codeOf(refused)).toBe("breaker_open");
    const retryAt = new Date(openedAt.getTime() + 30_000).toISOString();
    expect(textOf(refused)).toContain(
      "payments-api (the service behind test__charge) is unavailable: its circuit breaker is open since " +
        `${openedAt.toISOString()}, and it will be tried again at ${retryAt}`,
    );
    expect(textOf(refused)).toContain("try another approach that does not need payments-api, or tell the user");
    expect(calls()).toHaveLength(0);
  });

  it("a rejected call stays rejected, with the person's reason", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { approval: "required" });
    const held = await call("test__charge", { customer: "r-1", amount: 1 });
    await rejectOperation(t.ledger, operationOf(held), { reason: "not this customer" }, alice, new Date());
    const again = await call("test__charge", { customer: "r-1", amount: 1 });
    expect(codeOf(again)).toBe("rejected");
    expect(textOf(again)).toMatch(/not this customer/);
    expect(calls()).toHaveLength(0);
  });

  it("an approval nobody gave in time expires, and the call stays refused", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { approval: "required", approvalTtlMs: 1000 });
    const held = await call("test__charge", { customer: "e-1", amount: 1 });
    expect(await expireApprovals(t.ledger, new Date(Date.now() + 2000))).toBe(1);
    const again = await call("test__charge", { customer: "e-1", amount: 1 });
    expect(codeOf(again)).toBe("approval_expired");
    expect(operationOf(again)).toBe(operationOf(held));
    expect(calls()).toHaveLength(0);
  });
});

describe("an upstream waiting to restart", () => {
  it("refuses a new call recording nothing, and answers an earlier call from its operation", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { timeoutMs: 1000 });
    writeControl(files().control, { charge: "hang_after_commit" });
    const lost = await call("test__charge", { customer: "d-1", amount: 1 });
    writeControl(files().control, {});
    const restarting = `Upstream "test" is restarting (it exited); the next try is in 3 s.`;
    ctx = { ...ctx, upstreams: { ...upstreams, unavailable: () => restarting } };
    const fresh = await call("test__charge", { customer: "d-2", amount: 1 });
    expect(codeOf(fresh)).toBe("upstream_unavailable");
    expect(textOf(fresh)).toContain("the next try is in 3 s");
    expect(await t.db.operation.count()).toBe(1);
    const again = await call("test__charge", { customer: "d-1", amount: 1 });
    expect(codeOf(again)).toBe("outcome_unknown");
    expect(operationOf(again)).toBe(operationOf(lost));
    expect(calls()).toHaveLength(1);
  });
});

describe("observe mode", () => {
  it("forwards every call and records what enforcing would have done", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { mode: "observe", approval: "required" });
    const first = await call("test__charge", { customer: "c-8", amount: 2 });
    expect(first.isError).toBeFalsy();
    expect(first._meta?.["opledger/wouldHave"]).toMatchObject({ code: "approval_required" });
    const second = await call("test__charge", { customer: "c-8", amount: 2 });
    expect(second.isError).toBeFalsy();
    expect(second._meta?.["opledger/wouldHave"]).toMatchObject({ code: "replayed", operationId: operationOf(first) });
    expect(effects()).toHaveLength(2);
    const ops = await t.db.operation.findMany({ orderBy: { id: "asc" } });
    expect(ops.map((o) => o.phase)).toEqual(["CONFIRMED", "CONFIRMED"]);
  });
});

describe("MCP tasks: a call that waits for a person", () => {
  const otherAgent: Actor = {
    type: "api_key",
    id: "other-agent-key",
    label: "other (opl_oth…)",
    scopes: ["agent"],
    person: null,
  };

  const HELD = { approval: "required" } as const;

  /** An SDK client of the gateway's MCP server as `actor` (the same handlers a request to /mcp is answered by). */
  async function clientAs(actor: Actor): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gatewayServer({ ...ctx, actor: actor as GatewayServerContext["actor"] }).connect(serverSide);
    const client = new Client({ name: "tasks-test", version: "1" });
    await client.connect(clientSide);
    return client;
  }

  /** tools/call as a task; the answer must be a task, whatever happened to the call. */
  async function callAsTask(client: Client, args: Record<string, unknown>) {
    const created = await client.request(
      { method: "tools/call", params: { name: "test__charge", arguments: args, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    return created.task;
  }

  const resultOf = (client: Client, taskId: string) =>
    client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);

  it("is working until a person approves; then it runs once and tasks/result gives the upstream's result", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", HELD);
    const client = await clientAs(agent);
    const task = await callAsTask(client, { customer: "t-1", amount: 4 });
    expect(task).toMatchObject({ status: "working", ttl: null });
    expect(task.statusMessage).toMatch(/waits for a person's approval/);
    expect(await phaseOf(task.taskId)).toBe("AWAITING_APPROVAL");
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("working");
    expect(calls()).toHaveLength(0);

    // tasks/result waits while nobody decided, and answers once a person approved.
    const waiting = resultOf(client, task.taskId);
    const pause = new Promise((resolve) => setTimeout(() => resolve("still waiting"), TASK_POLL_MS + 500));
    expect(await Promise.race([waiting, pause])).toBe("still waiting");
    await approveOperation(t.ledger, task.taskId, { reason: "checked" }, alice, new Date());
    const result = await waiting;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/charged t-1/);
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("completed");
    expect((await resultOf(client, task.taskId)).content).toEqual(result.content);
    expect(effects()).toHaveLength(1);
    expect(calls()).toHaveLength(1);
  });

  it("tasks/get runs the approved call too, so a client that polls it sees the task complete", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", HELD);
    const client = await clientAs(agent);
    const task = await callAsTask(client, { customer: "t-2", amount: 4 });
    await approveOperation(t.ledger, task.taskId, { reason: "checked" }, alice, new Date());
    await vi.waitFor(
      async () => expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("completed"),
      { timeout: 20_000, interval: 500 },
    );
    expect(await phaseOf(task.taskId)).toBe("CONFIRMED");
    expect(effects()).toHaveLength(1);
  });

  it("fails with the person's reason once rejected, and when nobody approved in time", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", { ...HELD, approvalTtlMs: 1000 });
    const client = await clientAs(agent);
    const rejected = await callAsTask(client, { customer: "t-3", amount: 1 });
    await rejectOperation(t.ledger, rejected.taskId, { reason: "not this customer" }, alice, new Date());
    expect((await client.experimental.tasks.getTask(rejected.taskId)).status).toBe("failed");
    const refusal = await resultOf(client, rejected.taskId);
    expect(refusal.isError).toBe(true);
    expect(codeOf(refusal)).toBe("rejected");
    expect(textOf(refusal)).toMatch(/A person rejected this call.*not this customer/s);

    const expired = await callAsTask(client, { customer: "t-4", amount: 1 });
    await expireApprovals(t.ledger, new Date(Date.now() + 2000));
    expect((await client.experimental.tasks.getTask(expired.taskId)).status).toBe("failed");
    expect(codeOf(await resultOf(client, expired.taskId))).toBe("approval_expired");
    expect(calls()).toHaveLength(0);
  });

  it("a NON_RETRYABLE repeat made as a task is working while a person decides, and completes once approved", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const client = await clientAs(agent);
    const first = await callAsTask(client, { customer: "t-9", amount: 2 });
    expect(first.status).toBe("completed");
    // tasks/result delivers the call's outcome: the same call made again is a new one.
    await recordDelivery(t.ledger, first.taskId, agent, new Date());
    const repeat = await callAsTask(client, { customer: "t-9", amount: 2 });
    expect(repeat.taskId).not.toBe(first.taskId);
    expect(repeat.status).toBe("working");
    expect(repeat.statusMessage).toMatch(/same as an earlier one/);
    await approveOperation(t.ledger, repeat.taskId, { reason: "a second charge" }, alice, new Date());
    expect((await client.experimental.tasks.getTask(repeat.taskId)).status).toBe("completed");
    expect(effects()).toHaveLength(2);
  });

  it("a tasks/result whose client went away stops waiting", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", HELD);
    const task = await callAsTask(await clientAs(agent), { customer: "t-8", amount: 1 });
    const gone = new AbortController();
    const waiting = taskResult(ctx, task.taskId, gone.signal);
    gone.abort();
    await expect(waiting).rejects.toMatchObject({ message: expect.stringMatching(/stopped waiting/) as unknown });
    expect(await phaseOf(task.taskId)).toBe("AWAITING_APPROVAL");
  });

  it("another agent key finds no such task: it can neither read, wait for nor cancel it", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", HELD);
    const task = await callAsTask(await clientAs(agent), { customer: "t-5", amount: 1 });
    const other = await clientAs(otherAgent);
    const noSuchTask = { code: -32602, message: expect.stringMatching(/There is no task/) as unknown };
    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject(noSuchTask);
    await expect(resultOf(other, task.taskId)).rejects.toMatchObject(noSuchTask);
    await expect(other.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject(noSuchTask);
    expect(await phaseOf(task.taskId)).toBe("AWAITING_APPROVAL");
  });

  it("tasks/cancel withdraws the agent's own call without approving anything; a finished task cannot be cancelled", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE", HELD);
    const client = await clientAs(agent);
    const task = await callAsTask(client, { customer: "t-6", amount: 1 });
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe("cancelled");
    const op = await t.db.operation.findUniqueOrThrow({ where: { id: task.taskId } });
    expect(op).toMatchObject({ phase: "REJECTED", approvedAttempt: null });
    expect(op.rejectionReason).toContain(WITHDRAWN_REASON);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(approveOperation(t.ledger, task.taskId, { reason: "too late" }, alice, new Date())).rejects.toThrow(
      LedgerError,
    );
    expect(calls()).toHaveLength(0);
  });

  it("a call that needs nobody is a completed task at once; one refused before it is an operation is an error", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const client = await clientAs(agent);
    const task = await callAsTask(client, { customer: "t-7", amount: 1 });
    expect(task.status).toBe("completed");
    expect(textOf(await resultOf(client, task.taskId))).toMatch(/charged t-7/);
    expect(effects()).toHaveLength(1);
    const refused = client.request(
      { method: "tools/call", params: { name: "test__nope", arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    await expect(refused).rejects.toBeInstanceOf(McpError);
    await expect(refused).rejects.toMatchObject({ message: expect.stringMatching(/no contract/) as unknown });
  });
});
