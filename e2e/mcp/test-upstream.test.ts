// The test upstream as a real process over stdio (and once over HTTP), driven by the SDK's Client: every switch does
// what it says and the effects it records are exactly the ones it committed.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { readCalls, readEffects, writeControl } from "./test-upstream-effects";

const ROOT = path.resolve(__dirname, "../..");
const SCRIPT = path.join(__dirname, "test-upstream.ts");

let dir: string;
let files: { effects: string; calls: string; control: string };
const clients: Client[] = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "test-upstream-"));
  files = {
    effects: path.join(dir, "effects.jsonl"),
    calls: path.join(dir, "calls.jsonl"),
    control: path.join(dir, "control.json"),
  };
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const child of children.splice(0)) child.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function upstreamEnv(): Record<string, string> {
  return {
    ...getDefaultEnvironment(),
    TEST_UPSTREAM_EFFECTS: files.effects,
    TEST_UPSTREAM_CALLS: files.calls,
    TEST_UPSTREAM_CONTROL: files.control,
  };
}

async function connectStdio(): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", SCRIPT],
    cwd: ROOT,
    env: upstreamEnv(),
    stderr: "pipe",
  });
  const client = new Client({ name: "test-upstream-test", version: "1.0.0" });
  clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function firstText(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

/** Starting tsx takes seconds on a loaded machine. */
const SLOW = { timeout: 60_000 };

describe("the test upstream over stdio", SLOW, () => {
  test("lists its three tools with the reserved _test argument and honest annotations", async () => {
    const { client } = await connectStdio();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["charge", "lookup", "put_record"]);
    for (const tool of tools) expect(Object.keys(tool.inputSchema.properties ?? {})).toContain("_test");
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(byName.charge).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(byName.put_record).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(byName.lookup).toMatchObject({ readOnlyHint: true });
  });

  test("charge, put_record and lookup: effects and calls counted exactly, repeats never deduplicated", async () => {
    const { client } = await connectStdio();
    const charged = await call(client, "charge", { customer: "c1", amount: 42 });
    expect(charged.isError).toBeFalsy();
    expect(firstText(charged)).toBe("charged c1 42");
    expect(charged.structuredContent?.chargeId).toMatch(/^ch_[0-9a-f]{16}$/);
    await call(client, "put_record", { id: "r1", value: "v1" });
    await call(client, "put_record", { id: "r1", value: "v1" });
    expect(firstText(await call(client, "lookup", { id: "r1" }))).toBe("r1 = v1");
    expect(firstText(await call(client, "lookup", { id: "nope" }))).toBe("no record nope");

    const effects = readEffects(files.effects);
    expect(effects.map((e) => [e.tool, e.args])).toEqual([
      ["charge", { customer: "c1", amount: 42 }],
      ["put_record", { id: "r1", value: "v1" }],
      ["put_record", { id: "r1", value: "v1" }],
    ]);
    expect(effects[0]?.pid).toBeGreaterThan(0);
    expect(readCalls(files.calls).map((c) => c.tool)).toEqual([
      "charge",
      "put_record",
      "put_record",
      "lookup",
      "lookup",
    ]);
  });

  test.each([
    ["is_error", 0],
    ["fail_before_commit", 0],
    ["is_error_after_commit", 1],
  ])("%s answers isError and leaves %i effect", async (mode, expected) => {
    const { client } = await connectStdio();
    const result = await call(client, "charge", { customer: "c1", amount: 1, _test: mode });
    expect(result.isError).toBe(true);
    expect(readEffects(files.effects)).toHaveLength(expected);
    expect(readCalls(files.calls)).toHaveLength(1);
  });

  test("slow:<ms> waits, then commits and answers", async () => {
    const { client } = await connectStdio();
    const started = Date.now();
    const result = await call(client, "put_record", { id: "r1", value: "v", _test: "slow:400" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(result.isError).toBeFalsy();
    expect(readEffects(files.effects)).toHaveLength(1);
  });

  test("hang_after_commit records the effect and never answers", async () => {
    const { client } = await connectStdio();
    await expect(
      client.callTool(
        { name: "charge", arguments: { customer: "c1", amount: 5, _test: "hang_after_commit" } },
        undefined,
        {
          timeout: 1000,
        },
      ),
    ).rejects.toThrow(/timed out/i);
    expect(readEffects(files.effects)).toHaveLength(1);
  });

  test("an unknown switch is an error with no effect", async () => {
    const { client } = await connectStdio();
    const result = await call(client, "charge", { customer: "c1", amount: 5, _test: "explode" });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('unknown switch "explode"');
    expect(readEffects(files.effects)).toHaveLength(0);
  });

  test("exit_after_commit from the control file: one effect recorded, the process exits, the client sees the close", async () => {
    const { client, transport } = await connectStdio();
    await call(client, "charge", { customer: "c1", amount: 5 });
    writeControl(files.control, { charge: "exit_after_commit" });
    const closed = new Promise<void>((resolve) => {
      client.onclose = () => resolve();
    });
    const pid = transport.pid;
    await expect(call(client, "charge", { customer: "c1", amount: 5 })).rejects.toThrow(/closed/i);
    await closed;
    const effects = readEffects(files.effects);
    expect(effects).toHaveLength(2);
    expect(effects[1]?.pid).toBe(pid);
  });

  test("disabledTools in the control file hides a tool and sends tools/list_changed", async () => {
    const { client } = await connectStdio();
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    writeControl(files.control, { disabledTools: ["lookup"] });
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["charge", "put_record"]);
  });
});

describe("the test upstream over Streamable HTTP", SLOW, () => {
  async function startHttp(bearer: string): Promise<string> {
    const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, "--http", "0"], {
      cwd: ROOT,
      env: { ...process.env, ...upstreamEnv(), TEST_UPSTREAM_BEARER: bearer },
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    return new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        const url = /listening on (\S+)/.exec(out)?.[1];
        if (url) resolve(url);
      });
      child.once("exit", (code) => reject(new Error(`the test upstream exited ${code} before listening`)));
    });
  }

  function httpClient(url: string, bearer: string): { client: Client; transport: StreamableHTTPClientTransport } {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
    });
    const client = new Client({ name: "test-upstream-test", version: "1.0.0" });
    clients.push(client);
    return { client, transport };
  }

  test("refuses a wrong token, and with the right one charges and records the effect", async () => {
    const url = await startHttp("secret-token");
    const wrong = httpClient(url, "wrong");
    await expect(wrong.client.connect(wrong.transport)).rejects.toMatchObject({ code: 401 });
    const right = httpClient(url, "secret-token");
    await right.client.connect(right.transport);
    expect(right.transport.sessionId).toBeTruthy();
    expect(firstText(await call(right.client, "charge", { customer: "c2", amount: 7 }))).toBe("charged c2 7");
    expect(readEffects(files.effects).map((e) => e.args)).toEqual([{ customer: "c2", amount: 7 }]);
  });
});
