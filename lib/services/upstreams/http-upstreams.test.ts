// Url upstreams against a real SDK server over Streamable HTTP on 127.0.0.1: the secret header, paged tools/list,
// JSON-RPC refusals, the deadline, a forgotten session, and the outbound rules (loopback refused unless allowed, a
// closed port is not_sent).
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openUpstreams, type Upstreams, type UpstreamsOptions } from "./registry";

/** Asymmetric matchers typed as unknown, so they sit in object literals without an `any`. */
const matching = (pattern: RegExp): unknown => expect.stringMatching(pattern);
const SECRET = "Bearer http-upstream-secret-0123456789";
const sessions = new Map<string, StreamableHTTPServerTransport>();
const seenAuthorization: (string | undefined)[] = [];
let calls = 0;
let server: http.Server;
let url: string;
let dir: string;
let opened: Upstreams[] = [];

/** One SDK server per session: two pages of tools, an echo, a tool that never answers, and a refusal. */
function upstreamServer(): Server {
  const s = new Server({ name: "http-test", version: "1.0.0" }, { capabilities: { tools: {} } });
  const pages = [
    [
      {
        name: "echo",
        inputSchema: { type: "object" as const },
        annotations: { idempotentHint: true, destructiveHint: false },
      },
    ],
    [{ name: "hang", inputSchema: { type: "object" as const } }],
  ];
  s.setRequestHandler(ListToolsRequestSchema, (request) => {
    const page = Number(request.params?.cursor ?? 0);
    return { tools: pages[page] ?? [], ...(page + 1 < pages.length ? { nextCursor: String(page + 1) } : {}) };
  });
  s.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls += 1;
    if (request.params.name === "echo")
      return { content: [{ type: "text" as const, text: JSON.stringify(request.params.arguments ?? {}) }] };
    if (request.params.name === "hang") return new Promise<never>(() => {});
    throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
  });
  return s;
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seenAuthorization.push(req.headers.authorization);
    const sid = req.headers["mcp-session-id"];
    const known = typeof sid === "string" ? sessions.get(sid) : undefined;
    if (typeof sid === "string" && !known) {
      res.writeHead(404).end();
      return;
    }
    const handle = async () => {
      let transport = known;
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        await upstreamServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    };
    handle().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-http-upstreams-"));
});

afterEach(async () => {
  await Promise.all(opened.map((u) => u.close()));
  opened = [];
});

afterAll(async () => {
  for (const transport of sessions.values()) await transport.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(entry: Record<string, unknown>, options: UpstreamsOptions = {}): Upstreams {
  const file = path.join(dir, `upstreams-${randomUUID()}.json`);
  fs.writeFileSync(file, JSON.stringify({ upstreams: { remote: entry } }));
  const registry = openUpstreams(file, {
    environment: { OPLEDGER_SECRET_REMOTE: SECRET },
    allowPrivate: true,
    log: () => {},
    watchIntervalMs: 0,
    ...options,
  });
  opened.push(registry);
  return registry;
}

describe("url upstreams", () => {
  it("sends the secret as its header, follows tools/list pages, and answers calls", async () => {
    const registry = open({ url, headers: { authorization: "OPLEDGER_SECRET_REMOTE" } });
    const tools = await registry.tools();
    expect(tools.map((t) => t.gatewayName)).toEqual(["remote__echo", "remote__hang"]);
    expect(seenAuthorization.at(-1)).toBe(SECRET);
    const call = await registry.callUpstreamTool("remote", "echo", { a: 1 }, { timeoutMs: 5000, meta: { m: 1 } });
    expect(call).toEqual({ outcome: "answered", result: { content: [{ type: "text", text: '{"a":1}' }] } });
    expect(registry.list()[0]).toMatchObject({ kind: "url", target: url, state: "ready" });
  });

  it("passes a JSON-RPC error on as refused, with its code", async () => {
    const registry = open({ url });
    // The message is the upstream's own words (this SDK server puts its "MCP error" prefix in them itself).
    expect(await registry.callUpstreamTool("remote", "nope", {}, { timeoutMs: 5000 })).toEqual({
      outcome: "refused",
      code: ErrorCode.InvalidParams,
      message: matching(/Tool nope not found$/),
    });
  });

  it("answers no_answer at the deadline", async () => {
    const registry = open({ url });
    const started = Date.now();
    expect(await registry.callUpstreamTool("remote", "hang", {}, { timeoutMs: 300 })).toMatchObject({
      outcome: "no_answer",
      reason: matching(/did not answer within 300 ms/),
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reads a 404 for a forgotten session as not sent, and opens a new session for the next call", async () => {
    const registry = open({ url });
    expect(await registry.callUpstreamTool("remote", "echo", {}, { timeoutMs: 5000 })).toMatchObject({
      outcome: "answered",
    });
    const before = calls;
    sessions.clear();
    expect(await registry.callUpstreamTool("remote", "echo", {}, { timeoutMs: 5000 })).toMatchObject({
      outcome: "not_sent",
      reason: matching(/no longer knows the session/),
    });
    expect(calls).toBe(before);
    await expect
      .poll(async () => (await registry.callUpstreamTool("remote", "echo", {}, { timeoutMs: 5000 })).outcome, {
        timeout: 5000,
      })
      .toBe("answered");
  });

  it("refuses a loopback upstream unless private addresses are allowed: failed, and calls not sent", async () => {
    const registry = open({ url }, { allowPrivate: false });
    const before = calls;
    expect(await registry.tools()).toEqual([]);
    expect(registry.list()[0]).toMatchObject({
      state: "failed",
      lastError: matching(/127\.0\.0\.1 is a loopback address; .*OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on/),
    });
    expect(await registry.callUpstreamTool("remote", "echo", {}, { timeoutMs: 1000 })).toMatchObject({
      outcome: "not_sent",
    });
    expect(calls).toBe(before);
  });

  it("pins the connection to the checked address: a public-looking name resolved by the test reaches 127.0.0.1", async () => {
    const port = (server.address() as AddressInfo).port;
    const registry = open(
      { url: `http://upstream.example.test:${port}/mcp` },
      { resolve: () => Promise.resolve([{ address: "127.0.0.1", family: 4 }]) },
    );
    expect(await registry.callUpstreamTool("remote", "echo", { b: 2 }, { timeoutMs: 5000 })).toMatchObject({
      outcome: "answered",
    });
  });

  it("calls a closed port not_sent", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const registry = open({ url: `http://127.0.0.1:${port}/mcp` });
    const call = await registry.callUpstreamTool("remote", "echo", {}, { timeoutMs: 2000 });
    expect(call).toMatchObject({ outcome: "not_sent", reason: matching(/ECONNREFUSED/) });
  });
});
