// The gateway's tools/list and tools/call on a real database against the test upstream, a real MCP server over stdio
// that counts its effects durably: never a second effect without a person.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { approveOperation, rejectOperation } from "@/lib/ledger/commands/approval";
import { expireApprovals } from "@/lib/ledger/commands/expire-approvals";
import { forceBreaker } from "@/lib/ledger/dependencies/dependencies";
import { LedgerError } from "@/lib/ledger/errors";
import { gatewayToolCall, gatewayTools, type GatewayServerContext } from "@/lib/mcp/gateway/gateway-server";
import { openUpstreams, type Upstreams } from "@/lib/mcp/upstreams/registry";
import { readCalls, readEffects, writeControl } from "../e2e/mcp/test-upstream-effects";
import { agent, alice, withContract } from "./helpers/ledger-fixtures";
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
  });
});

describe("tools/call", () => {
  it("runs a call once and answers the same call again from the ledger, without calling the upstream", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const first = await call("test__charge", { customer: "c-1", amount: 5 });
    expect(first.isError).toBeFalsy();
    const again = await call("test__charge", { amount: 5, customer: "c-1" });
    expect(again._meta?.["opledger/replayed"]).toBe(true);
    expect(again.content).toEqual(first.content);
    expect(operationOf(again)).toBe(operationOf(first));
    expect(await phaseOf(operationOf(first))).toBe("CONFIRMED");
    expect(effects()).toHaveLength(1);
    expect(calls()).toHaveLength(1);
    const op = await t.db.operation.findUniqueOrThrow({ where: { id: operationOf(first) } });
    expect(op).toMatchObject({ via: "mcp", runId: "run-1", plannedByKeyId: agent.id });
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

  it("takes the client's key from _meta", async () => {
    await withContract(t.ledger, "test__charge", "NON_RETRYABLE");
    const a = await call("test__charge", { customer: "c-7", amount: 1 }, { "opledger/idempotencyKey": "k-1" });
    const op = await t.db.operation.findUniqueOrThrow({ where: { id: operationOf(a) } });
    expect(op.idempotencyKey).toBe("k-1");
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
