// The MCP gateway over Streamable HTTP with the official SDK's client, against upstreams nobody here wrote (the
// reference filesystem and everything servers) and the test upstream that counts its effects.
import fs from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { extraPort, ServerProcess } from "../fixtures/server-process";
import { freshDatabase } from "../scale-out/support/fresh-database";
import { signInThroughApi } from "../fixtures/login";
import {
  REPO_ROOT,
  SCREENSHOT_DIR,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_BOOTSTRAP_API_KEY,
} from "../fixtures/test-env";
import { codeOf, GatewayWorld, operationOf, textOf } from "./support/gateway-world";

const run = promisify(execFile);
let world: GatewayWorld;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  world = await GatewayWorld.start(extraPort(9));
  await world.contract("fs__write_file", { effect: "NON_RETRYABLE" });
  await world.contract("fs__read_text_file", { effect: "PURE", reconcile: null });
  await world.contract("everything__echo", { effect: "PURE", reconcile: null });
  await world.contract("test__charge", {
    effect: "NON_RETRYABLE",
    timeoutMs: 1500,
    keyFrom: "charge:{customer}:{amount}",
  });
});

test.afterAll(async () => {
  test.setTimeout(90_000);
  await world?.stop();
});

test("tools/list shows only tools with a contract, annotated from the contract", async () => {
  const client = await world.client();
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  expect(names).toEqual(["everything__echo", "fs__read_text_file", "fs__write_file", "test__charge"]);
  const write = tools.find((t) => t.name === "fs__write_file");
  expect(write?.annotations).toEqual({ destructiveHint: true, idempotentHint: false });
  expect(write?.description).toMatch(/opledger: a NON_RETRYABLE tool/);
  await client.close();
});

test("a filesystem write lands on disk once; the same call again is answered from the ledger", async () => {
  const client = await world.client();
  const target = path.join(world.files, "note.txt");
  const args = { path: target, content: "written once" };
  const first = (await client.callTool({ name: "fs__write_file", arguments: args })) as CallToolResult;
  expect(first.isError ?? false).toBe(false);
  expect(fs.readFileSync(target, "utf8")).toBe("written once");
  fs.writeFileSync(target, "changed by someone else");
  const again = (await client.callTool({ name: "fs__write_file", arguments: args })) as CallToolResult;
  expect(again._meta?.["opledger/replayed"]).toBe(true);
  // Not written a second time: the file keeps what was put there after the first call.
  expect(fs.readFileSync(target, "utf8")).toBe("changed by someone else");
  const op = await world.operation(operationOf(first));
  expect(op).toMatchObject({ phase: "CONFIRMED", via: "mcp", attempt: 1 });
  expect(op.runId).toBeTruthy();
  await client.close();
});

test("the everything server's echo goes through, and a read-only tool too", async () => {
  const client = await world.client();
  const echo = (await client.callTool({ name: "everything__echo", arguments: { message: "hi" } })) as CallToolResult;
  expect(textOf(echo)).toContain("hi");
  fs.writeFileSync(path.join(world.files, "read.txt"), "read me");
  const read = (await client.callTool({
    name: "fs__read_text_file",
    arguments: { path: path.join(world.files, "read.txt") },
  })) as CallToolResult;
  expect(textOf(read)).toContain("read me");
  await client.close();
});

test("prompts and resources of the upstreams are relayed unchanged, prompts named like tools", async () => {
  const client = await world.client();
  const { prompts } = await client.listPrompts();
  expect(prompts.map((p) => p.name)).toContain("everything__simple-prompt");
  const prompt = await client.getPrompt({ name: "everything__simple-prompt" });
  expect(prompt.messages.length).toBeGreaterThan(0);
  const { resources } = await client.listResources();
  const first = resources[0];
  expect(first?.uri).toMatch(/^demo:\/\//);
  const read = await client.readResource({ uri: first?.uri ?? "" });
  expect(read.contents[0]?.uri).toBe(first?.uri);
  await expect(client.readResource({ uri: "demo://no/such/resource" })).rejects.toThrow();
  await client.close();
});

test("refusals: no contract, unknown tool and bad arguments reach no upstream", async () => {
  const client = await world.client();
  const calls = world.calls().length;
  const noContract = (await client.callTool({
    name: "test__put_record",
    arguments: { id: "r", value: "v" },
  })) as CallToolResult;
  expect(codeOf(noContract)).toBe("no_contract");
  const badArgs = (await client.callTool({ name: "test__charge", arguments: { customer: 1 } })) as CallToolResult;
  expect(codeOf(badArgs)).toBe("invalid_arguments");
  const unknown = (await client.callTool({ name: "nope", arguments: {} })) as CallToolResult;
  expect(unknown.isError).toBe(true);
  expect(world.calls()).toHaveLength(calls);
  await client.close();
});

test("bad requests: no key, malformed JSON-RPC, a foreign page; the older protocol version", async () => {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const noKey = await fetch(`${world.url}/mcp`, { method: "POST", headers, body: JSON.stringify(init) });
  expect(noKey.status).toBe(401);
  const authed = { ...headers, authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` };
  const malformed = await fetch(`${world.url}/mcp`, { method: "POST", headers: authed, body: "{not json" });
  expect(malformed.status).toBe(400);
  expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);
  const foreign = await fetch(`${world.url}/mcp`, {
    method: "POST",
    headers: { ...authed, origin: "https://evil.example" },
    body: JSON.stringify(init),
  });
  expect(foreign.status).toBe(403);
  // The older protocol version is answered in kind, and the session id names the run.
  const older = await fetch(`${world.url}/mcp`, { method: "POST", headers: authed, body: JSON.stringify(init) });
  expect(older.status).toBe(200);
  expect(older.headers.get("mcp-session-id")).toBeTruthy();
  expect(((await older.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-06-18");
});

test("a broken upstreams file stops start-up with one sentence naming the problem", async () => {
  test.setTimeout(150_000);
  const file = path.join(world.dir, "broken-upstreams.json");
  fs.writeFileSync(file, JSON.stringify({ upstreams: { "Bad Name": { command: "node" } } }));
  const database = await freshDatabase(`mcp_broken_${extraPort(4)}`);
  try {
    const started = ServerProcess.start({
      name: "server with a broken upstreams file",
      port: extraPort(4),
      databaseUrl: database.url,
      env: { OPLEDGER_MCP_UPSTREAMS: file },
    });
    await expect(started).rejects.toThrow(/exited before it was healthy[\s\S]*OPLEDGER_MCP_UPSTREAMS[\s\S]*Bad Name/);
  } finally {
    await database.drop();
  }
});

test("the MCP Inspector's command line lists and calls through the gateway", async () => {
  test.setTimeout(120_000);
  const cli = path.join(REPO_ROOT, "node_modules", ".bin", "mcp-inspector");
  const common = [
    "--cli",
    `${world.url}/mcp`,
    "--transport",
    "http",
    "--header",
    `Authorization: Bearer ${TEST_BOOTSTRAP_API_KEY}`,
  ];
  const listed = await run(cli, [...common, "--method", "tools/list"], { cwd: REPO_ROOT, timeout: 60_000 });
  expect(listed.stdout).toContain("fs__write_file");
  const called = await run(
    cli,
    [...common, "--method", "tools/call", "--tool-name", "everything__echo", "--tool-arg", "message=from-inspector"],
    { cwd: REPO_ROOT, timeout: 60_000 },
  );
  expect(called.stdout).toContain("from-inspector");
});

test("the stdio bridge gives a local-only client the same tools", async () => {
  test.setTimeout(90_000);
  const client = new Client({ name: "bridge-e2e", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: path.join(REPO_ROOT, "node_modules", ".bin", "tsx"),
      args: [path.join(REPO_ROOT, "scripts", "opledger.ts"), "mcp"],
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", OPLEDGER_URL: world.url, OPLEDGER_API_KEY: TEST_BOOTSTRAP_API_KEY },
    }),
  );
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain("everything__echo");
  await client.close();
});

test("a contract change is passed on as tools/list_changed", async () => {
  const client = await world.client();
  const changed = new Promise<void>((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
  );
  // Give the client's listening stream a moment to open before the change.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await world.contract("everything__get-sum", { effect: "PURE", reconcile: null });
  await expect(changed).resolves.toBeUndefined();
  await client.close();
});

test("the Upstreams page shows each upstream, its tools with their untrusted hints, and Classify for the rest", async ({
  browser,
}) => {
  const context = await browser.newContext({ baseURL: world.url });
  const page = await context.newPage();
  await signInThroughApi(page, { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
  await page.goto("/upstreams");
  await expect(page.getByRole("heading", { name: "Upstreams" })).toBeVisible();
  for (const name of ["fs", "everything", "test"])
    await expect(page.getByText(name, { exact: true }).first()).toBeVisible();
  await expect(page.getByText(/untrusted/i).first()).toBeVisible();
  const classify = page.getByRole("link", { name: /Classify/ }).first();
  await expect(classify).toHaveAttribute("href", /\/contracts\/new\?classify=\w+__/);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, "mcp-upstreams.png"), fullPage: true });
  await context.close();
});

test.describe("crash windows: never a second effect without a person", () => {
  test("the upstream exits after committing: UNKNOWN, and the same call again is not forwarded", async () => {
    const client = await world.client();
    const args = { customer: "exit-1", amount: 5 };
    world.control({ charge: "exit_after_commit" });
    const lost = (await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
    expect(codeOf(lost)).toBe("outcome_unknown");
    world.control({});
    const again = (await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
    expect(codeOf(again)).toBe("outcome_unknown");
    expect(world.effects().filter((e) => e.args.customer === "exit-1")).toHaveLength(1);
    expect((await world.operation(operationOf(lost))).phase).toBe("UNKNOWN");
    await client.close();
  });

  test("the client disconnects mid-call: the gateway finishes, and the same call again gets the kept result", async () => {
    const client = await world.client();
    const args = { customer: "gone-1", amount: 2 };
    // The test upstream may still be waiting to restart after the last test killed it: the gateway refuses calls
    // then, recording nothing, until it is back.
    let probe = 0;
    await expect
      .poll(async () =>
        codeOf(
          (await client.callTool({
            name: "test__charge",
            arguments: { customer: `probe-${probe++}`, amount: 1 },
          })) as CallToolResult,
        ),
      )
      .not.toBe("upstream_unavailable");
    world.control({ charge: "slow:1000" });
    const abort = new AbortController();
    const pending = client.callTool({ name: "test__charge", arguments: args }, undefined, { signal: abort.signal });
    setTimeout(() => abort.abort(), 300);
    await expect(pending).rejects.toThrow();
    world.control({});
    await expect.poll(() => world.effects().filter((e) => e.args.customer === "gone-1").length).toBe(1);
    await expect
      .poll(async () => {
        const again = (await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
        return again._meta?.["opledger/replayed"] ?? codeOf(again);
      })
      .toBe(true);
    expect(world.effects().filter((e) => e.args.customer === "gone-1")).toHaveLength(1);
    await client.close();
  });

  test("the gateway is SIGKILLed after the upstream committed, before the outcome: UNKNOWN after restart, sweep or not", async () => {
    test.setTimeout(180_000);
    const client = await world.client();
    const args = { customer: "killed-1", amount: 7 };
    world.control({ charge: "hang_after_commit" });
    void client.callTool({ name: "test__charge", arguments: args }).catch(() => undefined);
    await expect.poll(() => world.effects().filter((e) => e.args.customer === "killed-1").length).toBe(1);
    // Down until the dead gateway's lease (the call's 1.5 s deadline and the 5 s margin, taken before the upstream
    // committed) has run out, as after a slow restart; back with no sweep, so the same call again is what finds the
    // lost attempt. A claim that leased it afresh would answer in_flight for as long as the client kept calling.
    await world.killAndRestart({ downMs: 6_600, env: { OPLEDGER_SWEEP_INTERVAL_MS: "3600000" } });
    world.control({});
    const after = await world.client();
    // The restarted server first starts the upstream again, slow on a loaded machine: until then the call is refused.
    let again: CallToolResult | undefined;
    await expect
      .poll(
        async () => {
          again = (await after.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
          return codeOf(again);
        },
        { timeout: 60_000 },
      )
      .toBe("outcome_unknown");
    expect(world.effects().filter((e) => e.args.customer === "killed-1")).toHaveLength(1);
    expect(world.calls().filter((c) => c.args.customer === "killed-1")).toHaveLength(1);
    expect((await world.operation(operationOf(again as CallToolResult))).phase).toBe("UNKNOWN");
    await after.close();
  });
});
