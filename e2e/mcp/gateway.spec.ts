// The MCP gateway over Streamable HTTP with the official SDK's client, against upstreams nobody here wrote (the
// reference filesystem and everything servers) and the test upstream that counts its effects.
import fs from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { extraPort, ServerProcess } from "../fixtures/server-process";
import { freshDatabase } from "../scale-out/support/fresh-database";
import { signInThroughApi } from "../fixtures/login";
import { callerSpan, newTraceId, pathUp, receivedSpans, spanWith } from "../fixtures/traces";
import {
  REPO_ROOT,
  SCREENSHOT_DIR,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_BOOTSTRAP_API_KEY,
} from "../fixtures/test-env";
import { screenshot } from "../demo/screenshot";
import { codeOf, GatewayWorld, operationOf, textOf } from "./support/gateway-world";

const run = promisify(execFile);
let world: GatewayWorld;
/** A person's key (an operator acting as the e2e admin), for approvals through the HTTP API. */
let personKey: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  world = await GatewayWorld.start(extraPort(9));
  // Writing the same content to the same path again leaves the same file: IDEMPOTENT.
  await world.contract("fs__write_file", { effect: "IDEMPOTENT" });
  await world.contract("fs__read_text_file", { effect: "PURE", reconcile: null });
  await world.contract("everything__echo", { effect: "PURE", reconcile: null });
  // The default key (the arguments within the session): a repeat after a delivered answer is a new call.
  await world.contract("test__charge", { effect: "NON_RETRYABLE", timeoutMs: 1500 });
  // A template names the effect itself: the same record and value is the same operation, always.
  await world.contract("test__put_record", { effect: "IDEMPOTENT", keyFrom: "put:{id}:{value}" });
  personKey = await world.key("operator");
});

test.afterAll(async () => {
  test.setTimeout(90_000);
  await world?.stop();
});

test("tools/list shows only tools with a contract, annotated from the contract", async () => {
  const client = await world.client();
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  expect(names).toEqual([
    "everything__echo",
    "fs__read_text_file",
    "fs__write_file",
    "test__charge",
    "test__put_record",
  ]);
  const charge = tools.find((t) => t.name === "test__charge");
  expect(charge?.annotations).toEqual({ destructiveHint: true, idempotentHint: false });
  expect(charge?.description).toMatch(/opledger: a NON_RETRYABLE tool/);
  await client.close();
});

test("the filesystem behind the gateway does what it says: a read after a write reads again, v1 v2 v1 leaves v1", async () => {
  const client = await world.client();
  const target = path.join(world.files, "s.txt");
  const write = async (content: string) =>
    (await client.callTool({ name: "fs__write_file", arguments: { path: target, content } })) as CallToolResult;
  const read = async () =>
    textOf((await client.callTool({ name: "fs__read_text_file", arguments: { path: target } })) as CallToolResult);
  const first = await write("v1");
  expect(first.isError ?? false).toBe(false);
  expect(await read()).toContain("v1");
  await write("v2");
  expect(await read()).toContain("v2");
  const back = await write("v1");
  expect(back._meta?.["opledger/replayed"]).toBeUndefined();
  expect(fs.readFileSync(target, "utf8")).toBe("v1");
  // A new operation linked to the write it repeats, each one marked as delivered.
  const repeat = await world.operation(operationOf(back));
  expect(repeat).toMatchObject({ phase: "CONFIRMED", via: "mcp", attempt: 1, repeatOf: operationOf(first) });
  expect((await world.operation(operationOf(first))).deliveredAt).toBeTruthy();
  await client.close();
});

test("the counting upstream: two identical calls at once make one effect and both are answered", async () => {
  const client = await world.client();
  const args = { customer: "twice-1", amount: 4 };
  world.control({ charge: "slow:800" });
  const both = (await Promise.all([
    client.callTool({ name: "test__charge", arguments: args }),
    client.callTool({ name: "test__charge", arguments: args }),
  ])) as CallToolResult[];
  world.control({});
  for (const answer of both) expect(textOf(answer)).toContain("charged twice-1 4");
  expect(operationOf(both[0] as CallToolResult)).toBe(operationOf(both[1] as CallToolResult));
  expect(world.effects().filter((e) => e.args.customer === "twice-1")).toHaveLength(1);
  await client.close();
});

test("a NON_RETRYABLE repeat of a delivered success waits for a person; approved, the call again makes one more effect", async ({
  browser,
}) => {
  const client = await world.client();
  const args = { customer: "dup-1", amount: 3 };
  const charged = () => world.effects().filter((e) => e.args.customer === "dup-1").length;
  const first = (await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
  expect(first.isError ?? false).toBe(false);
  const held = (await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
  expect(codeOf(held)).toBe("suspected_duplicate");
  expect(held._meta?.["opledger/repeatOf"]).toBe(operationOf(first));
  // A model in a loop gets the same answer and sends nothing.
  expect(operationOf((await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult)).toBe(
    operationOf(held),
  );
  expect(charged()).toBe(1);
  expect(await world.operation(operationOf(held))).toMatchObject({
    phase: "AWAITING_APPROVAL",
    repeatOf: operationOf(first),
  });
  // The person deciding sees what the held call repeats.
  const context = await browser.newContext({ baseURL: world.url });
  const page = await context.newPage();
  await signInThroughApi(page, { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
  await page.goto(`/operations/${operationOf(held)}`);
  await expect(page.getByText(/the same call succeeded at .* UTC, operation/)).toBeVisible();
  await expect(page.getByRole("link", { name: operationOf(first) })).toBeVisible();
  await context.close();
  await world.decide(operationOf(held), "approve", personKey, "the customer asked for a second charge");
  const ran = (await client.callTool({ name: "test__charge", arguments: args })) as CallToolResult;
  expect(ran.isError ?? false).toBe(false);
  expect(operationOf(ran)).toBe(operationOf(held));
  expect(charged()).toBe(2);
  await client.close();
});

test("explicit keys and templates keep their meaning: the same key is answered from the ledger", async () => {
  const client = await world.client();
  const put = { name: "test__put_record", arguments: { id: "tpl-1", value: "a" } };
  const first = (await client.callTool(put)) as CallToolResult;
  const again = (await client.callTool(put)) as CallToolResult;
  expect(again._meta?.["opledger/replayed"]).toBe(true);
  expect(operationOf(again)).toBe(operationOf(first));
  const keyed = {
    name: "test__charge",
    arguments: { customer: "key-1", amount: 1 },
    _meta: { "opledger/idempotencyKey": "e2e-key-1" },
  };
  const charged = (await client.callTool(keyed)) as CallToolResult;
  const repeated = (await client.callTool(keyed)) as CallToolResult;
  expect(repeated._meta?.["opledger/replayed"]).toBe(true);
  expect(operationOf(repeated)).toBe(operationOf(charged));
  expect(world.effects().filter((e) => e.args.id === "tpl-1" || e.args.customer === "key-1")).toHaveLength(2);
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

test("a tools/call with _meta.traceparent: the gateway's spans join the client's trace, and the upstream gets it", async ({
  browser,
}) => {
  const client = await world.client();
  const caller = callerSpan(newTraceId());
  const answer = (await client.callTool({
    name: "test__put_record",
    arguments: { id: "traced-1", value: "v1" },
    _meta: { traceparent: caller.traceparent },
  })) as CallToolResult;
  expect(answer.isError ?? false).toBe(false);
  const id = operationOf(answer);
  expect((await world.operation(id)).traceId).toBe(caller.traceId);
  // This server has no OPLEDGER_TRACE_URL: its console shows the trace id, and a Copy button reached by the keyboard.
  const context = await browser.newContext({ baseURL: world.url });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: world.url });
  const page = await context.newPage();
  await signInThroughApi(page, { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
  await page.goto(`/operations/${id}`);
  const shown = page.locator(`header [data-trace-id="${caller.traceId}"]`);
  await expect(shown).toContainText(caller.traceId);
  await expect(page.getByRole("link", { name: /^Trace of/ })).toHaveCount(0);
  const copy = shown.getByRole("button", { name: "Copy the trace id of the call that planned it" });
  await copy.focus();
  await page.keyboard.press("Enter");
  await expect(shown.getByRole("status")).toHaveText("Copied to the clipboard.");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(caller.traceId);
  await screenshot(page, "operation-trace-id-copy");
  await context.close();

  // The upstream's call came in the same trace, its parent the gateway's span for the upstream request.
  const upstreamCall = world.calls().find((c) => c.tool === "put_record" && c.args.id === "traced-1");
  const passed = new RegExp(`^00-${caller.traceId}-([0-9a-f]{16})-01$`).exec(upstreamCall?.traceparent ?? "");
  expect(passed, `the upstream's traceparent: ${upstreamCall?.traceparent}`).not.toBeNull();
  const upstreamParent = passed?.[1] ?? "";
  const sessionId = (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;

  await expect
    .poll(async () => {
      const spans = await receivedSpans(caller.traceId);
      const served = spanWith(spans, "tools/call test__put_record", { "mcp.method.name": "tools/call" });
      const executed = spanWith(spans, "execute_tool test__put_record", { "gen_ai.tool.call.id": id });
      const upstream = spans.find((s) => s.spanId === upstreamParent);
      return {
        served: served && {
          kind: served.kind,
          path: pathUp(spans, served, caller.spanId),
          session: served.attributes["mcp.session.id"],
        },
        executed: executed && { path: pathUp(spans, executed, caller.spanId), attributes: executed.attributes },
        upstream: upstream && { kind: upstream.kind, path: pathUp(spans, upstream, caller.spanId).slice(-3) },
      };
    })
    .toEqual({
      served: { kind: 2, path: ["tools/call test__put_record", "caller"], session: sessionId },
      executed: {
        path: ["execute_tool test__put_record", "tools/call test__put_record", "caller"],
        attributes: expect.objectContaining({
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "test__put_record",
          "gen_ai.tool.call.id": id,
        }) as unknown,
      },
      upstream: { kind: 3, path: ["execute_tool test__put_record", "tools/call test__put_record", "caller"] },
    });
  // No argument values without the contract's traceArguments: the value written appears in no span of the trace.
  const everything = JSON.stringify(await receivedSpans(caller.traceId));
  expect(everything).not.toContain("traced-1");
  await client.close();
});

test("refusals: no contract, unknown tool and bad arguments reach no upstream", async () => {
  const client = await world.client();
  const calls = world.calls().length;
  const noContract = (await client.callTool({ name: "test__lookup", arguments: { id: "r" } })) as CallToolResult;
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
  // The same rule as over HTTP: an answer that reached the bridge was delivered, so the same call again is a new one.
  const echo = { name: "everything__echo", arguments: { message: "through the bridge" } };
  const first = (await client.callTool(echo)) as CallToolResult;
  const second = (await client.callTool(echo)) as CallToolResult;
  expect(second._meta?.["opledger/replayed"]).toBeUndefined();
  expect(operationOf(second)).not.toBe(operationOf(first));
  expect((await world.operation(operationOf(second))).repeatOf).toBe(operationOf(first));
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

test("a tool that changes under its contract is not called until an admin confirms it in the console", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const client = await world.client();
  const listed = async () => (await client.listTools()).tools.map((t) => t.name);
  expect(await listed()).toContain("test__put_record");
  // The upstream describes the tool otherwise (a new description, one more input field) and says its list changed.
  world.control({ changedTools: ["put_record"] });
  await expect.poll(listed, { timeout: 30_000 }).not.toContain("test__put_record");
  const put = { name: "test__put_record", arguments: { id: "pin-1", value: "a" } };
  expect(codeOf((await client.callTool(put)) as CallToolResult)).toBe("tool_changed");
  expect(world.calls().filter((c) => c.args.id === "pin-1")).toHaveLength(0);

  const context = await browser.newContext({ baseURL: world.url });
  const page = await context.newPage();
  await signInThroughApi(page, { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
  await page.goto("/upstreams");
  const changed = page.locator('[data-tool-changed="test__put_record"]');
  await expect(changed.getByText(/Changed since classified/)).toBeVisible();
  await changed.getByText("What changed").click();
  await expect(changed.getByText(/Changed by the test/)).toBeVisible();
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, "mcp-tool-changed.png"), fullPage: true });
  // The confirmation asks first, from the keyboard: what is confirmed, and why (a reason is required).
  await changed.getByRole("button", { name: "Confirm the new definition" }).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Confirm the new definition of test__put_record?" });
  await expect(dialog).toContainText("description and input schema");
  await expect(dialog).toContainText("version 2 of its contract");
  const reason = dialog.getByRole("textbox", { name: "Reason" });
  await expect(reason).toBeFocused();
  const submit = dialog.getByRole("button", { name: "Confirm the new definition" });
  await submit.click();
  await expect(dialog.getByText("Give a reason; it is recorded with your name.")).toBeVisible();
  await expect(reason).toHaveAttribute("aria-invalid", "true");
  expect(await listed()).not.toContain("test__put_record");
  await reason.fill("Reviewed: the new force field is optional; the tool still writes one record.");
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, "mcp-tool-confirm-dialog.png") });
  await submit.click();
  await expect(dialog).toHaveCount(0);
  await expect(changed).toHaveCount(0);
  // The word of it in the tool's row, where the admin is looking, not at the top of a long page.
  const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: /^test__put_record/ }) });
  await expect(row.getByRole("status")).toHaveText("Confirmed as version 2 of the test__put_record contract.");
  await expect(row.getByRole("status")).toBeInViewport();
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, "mcp-tool-confirmed.png") });

  await expect.poll(listed).toContain("test__put_record");
  const stored = (await client.callTool(put)) as CallToolResult;
  expect(stored.isError ?? false).toBe(false);
  expect(world.effects().filter((e) => e.args.id === "pin-1")).toHaveLength(1);
  await client.close();

  // The contract page shows the version the confirmation made, with its reason.
  await page.goto("/contracts/test__put_record");
  await expect(page.getByRole("heading", { name: "Current rules · v2" })).toBeVisible();
  await expect(page.locator("[data-confirmed-definition]")).toContainText("the tool still writes one record");
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
    // The client's own key: the restarted client's session is another run, and the key says it is the same call.
    const _meta = { "opledger/idempotencyKey": "killed-1" };
    world.control({ charge: "hang_after_commit" });
    void client.callTool({ name: "test__charge", arguments: args, _meta }).catch(() => undefined);
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
          again = (await after.callTool({ name: "test__charge", arguments: args, _meta })) as CallToolResult;
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
