// Command upstreams against real processes: server-everything and server-filesystem from npm, and a small test server
// that exits mid-call, hangs and changes its tools. Proves the minimal child environment, the four outcomes, a prompt
// no_answer when the process dies mid-call, lazy restart with backoff, list_changed, and logged stderr without secrets.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openUpstreams, type Upstreams, type UpstreamsOptions } from "./registry";

const root = process.cwd();
const EVERYTHING = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const TEST_UPSTREAM = path.join(root, "lib/services/upstreams/test-upstreams/stdio-upstream.mjs");
/** Asymmetric matchers typed as unknown, so they sit in object literals without an `any`. */
const matching = (pattern: RegExp): unknown => expect.stringMatching(pattern);
const anyDate: unknown = expect.any(Date);
const SECRET = "s3cret-token-value-0123456789";

let dir: string;
let opened: Upstreams[] = [];
let lines: string[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-stdio-upstreams-"));
  lines = [];
});

afterEach(async () => {
  await Promise.all(opened.map((u) => u.close()));
  opened = [];
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(upstreams: Record<string, unknown>, options: UpstreamsOptions = {}): Upstreams {
  const file = path.join(dir, "upstreams.json");
  fs.writeFileSync(file, JSON.stringify({ upstreams }));
  const registry = openUpstreams(file, {
    environment: { OPLEDGER_SECRET_TOKEN: SECRET },
    log: (line) => lines.push(line),
    watchIntervalMs: 0,
    restartBackoff: { baseMs: 200, maxMs: 200 },
    // The top of the jitter, so the wait before a restart is known.
    random: () => 0.999,
    ...options,
  });
  opened.push(registry);
  return registry;
}

function text(call: Awaited<ReturnType<Upstreams["callUpstreamTool"]>>): string {
  if (call.outcome !== "answered") throw new Error(`expected an answer, got ${JSON.stringify(call)}`);
  const first = call.result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe("command upstreams", () => {
  it("starts lazily, lists the tools, and gives the child only the safe variables and its declared secret", async () => {
    process.env.NEXTAUTH_SECRET = "never-in-a-child-0123456789abcdef";
    process.env.DATABASE_URL ??= "file:/tmp/never.db";
    const registry = open({
      everything: { command: "node", args: [EVERYTHING], env: { TOKEN: "OPLEDGER_SECRET_TOKEN" } },
    });
    expect(registry.list()).toMatchObject([{ name: "everything", kind: "command", state: "idle", tools: null }]);
    const tools = await registry.tools();
    expect(tools.map((t) => t.gatewayName)).toEqual(
      expect.arrayContaining(["everything__echo", "everything__get-env"]),
    );
    const getEnv = tools.find((t) => t.tool.name === "get-env");
    expect(getEnv?.tool.annotations).toMatchObject({ readOnlyHint: true });
    expect(registry.list()[0]).toMatchObject({ state: "ready", lastError: null, toolsFetchedAt: anyDate });

    const call = await registry.callUpstreamTool("everything", "get-env", {}, { timeoutMs: 10_000 });
    const childEnv = JSON.parse(text(call)) as Record<string, string>;
    expect(childEnv.TOKEN).toBe(SECRET);
    expect(childEnv).not.toHaveProperty("NEXTAUTH_SECRET");
    expect(childEnv).not.toHaveProperty("DATABASE_URL");
    const allowed = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TOKEN"];
    expect(Object.keys(childEnv).filter((k) => !allowed.includes(k))).toEqual([]);
    delete process.env.NEXTAUTH_SECRET;

    const echo = await registry.callUpstreamTool("everything", "echo", { message: "hi" }, { timeoutMs: 10_000 });
    expect(text(echo)).toBe("Echo: hi");
    // The child's stderr went to our log with its name on each line.
    expect(lines.some((l) => l.startsWith("opledger: upstream everything: "))).toBe(true);
  });

  it("does real work on disk through server-filesystem, and passes the upstream's refusals on", async () => {
    const data = fs.mkdtempSync(path.join(dir, "data-"));
    const registry = open({ fs: { command: "node", args: [FILESYSTEM, data] } });
    const target = path.join(data, "hello.txt");
    const write = await registry.callUpstreamTool(
      "fs",
      "write_file",
      { path: target, content: "hello" },
      { timeoutMs: 10_000 },
    );
    expect(write).toMatchObject({ outcome: "answered" });
    expect(fs.readFileSync(target, "utf8")).toBe("hello");

    const unknown = await registry.callUpstreamTool("fs", "no_such_tool", {}, { timeoutMs: 10_000 });
    expect(unknown.outcome === "refused" || (unknown.outcome === "answered" && unknown.result.isError)).toBe(true);
    const outside = await registry.callUpstreamTool(
      "fs",
      "read_text_file",
      { path: "/etc/hostname" },
      { timeoutMs: 10_000 },
    );
    expect(outside).toMatchObject({ outcome: "answered", result: { isError: true } });
  });

  it("answers no_answer at the deadline, not the SDK's 60 s, and the call after it still works", async () => {
    const registry = open({ t: { command: "node", args: [TEST_UPSTREAM] } });
    await registry.tools();
    const started = Date.now();
    const call = await registry.callUpstreamTool("t", "hang", {}, { timeoutMs: 300 });
    expect(call).toMatchObject({ outcome: "no_answer", reason: matching(/did not answer within 300 ms/) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(text(await registry.callUpstreamTool("t", "ping", {}, { timeoutMs: 5000 }))).toMatch(/^pong/);
  });

  it("answers no_answer at once when the process exits mid-call, then restarts it lazily after the backoff", async () => {
    const registry = open({ t: { command: "node", args: [TEST_UPSTREAM] } });
    const firstPid = text(await registry.callUpstreamTool("t", "ping", {}, { timeoutMs: 5000 }));
    const started = Date.now();
    const call = await registry.callUpstreamTool("t", "exit-mid-call", {}, { timeoutMs: 30_000 });
    expect(call).toMatchObject({ outcome: "no_answer", reason: matching(/exited .*in flight/) });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(registry.list()[0]).toMatchObject({ state: "restarting", lastError: matching(/exited/) });

    // Within the backoff nothing is sent.
    expect(await registry.callUpstreamTool("t", "ping", {}, { timeoutMs: 5000 })).toMatchObject({
      outcome: "not_sent",
      reason: matching(/restarting .*next try/),
    });
    await new Promise((resolve) => setTimeout(resolve, 250));
    const again = text(await registry.callUpstreamTool("t", "ping", {}, { timeoutMs: 5000 }));
    expect(again).toMatch(/^pong/);
    expect(again).not.toBe(firstPid);
    expect(registry.list()[0]).toMatchObject({ state: "ready", lastError: null });
  });

  it("refreshes the tools when the upstream says they changed, and tells the listeners", async () => {
    const registry = open({ t: { command: "node", args: [TEST_UPSTREAM] } });
    const changes: string[] = [];
    registry.onToolsChanged((name) => changes.push(name));
    const before = await registry.tools();
    expect(before.map((t) => t.tool.name)).not.toContain("late");
    changes.length = 0;
    await registry.callUpstreamTool("t", "add-tool", { name: "late" }, { timeoutMs: 5000 });
    await expect.poll(() => changes, { timeout: 5000 }).toContain("t");
    expect((await registry.tools()).map((t) => t.gatewayName)).toContain("t__late");
  });

  it("leaves out a tool whose gateway name no client accepts, and logs stderr without the secret", async () => {
    const registry = open({ t: { command: "node", args: [TEST_UPSTREAM], env: { TOKEN: "OPLEDGER_SECRET_TOKEN" } } });
    const tools = await registry.tools();
    expect(tools.map((t) => t.tool.name)).not.toContain("bad.name");
    expect(lines).toContain(
      'opledger: upstream t: the tool "bad.name" is left out: its gateway name "t__bad.name" must be 1 to 128 letters, digits, "_" or "-".',
    );
    expect(lines).toContain("opledger: upstream t: test upstream starting with token [redacted]");
    expect(lines.join("\n")).not.toContain(SECRET);
  });

  it("marks an upstream that cannot start as failed, with no tools, and the others still work", async () => {
    const registry = open({
      broken: { command: path.join(dir, "no-such-program") },
      t: { command: "node", args: [TEST_UPSTREAM] },
    });
    const tools = await registry.tools();
    expect(tools.every((t) => t.upstream === "t")).toBe(true);
    expect(tools.length).toBeGreaterThan(0);
    const [broken] = registry.list();
    expect(broken).toMatchObject({
      name: "broken",
      state: "failed",
      tools: null,
      lastError: matching(/did not start: .*ENOENT/),
    });
    expect(await registry.callUpstreamTool("broken", "x", {}, { timeoutMs: 1000 })).toMatchObject({
      outcome: "not_sent",
    });
  });

  it("stops every child on close", async () => {
    const registry = open({ t: { command: "node", args: [TEST_UPSTREAM] } });
    const pid = Number(
      /pong from (\d+)/.exec(text(await registry.callUpstreamTool("t", "ping", {}, { timeoutMs: 5000 })))?.[1],
    );
    await registry.close();
    expect(registry.list()).toEqual([]);
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
