// The stdio bridge as a real process between the SDK's Client (over stdio) and a real Streamable HTTP MCP server that
// checks a Bearer token (the test upstream in HTTP mode): messages relayed both ways, and the failures that stop it.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readEffects, writeControl } from "@/e2e/mcp/test-upstream-effects";

const ROOT = path.resolve(__dirname, "../../../..");
const CLI = path.join(ROOT, "scripts", "opledger.ts");
const KEY = "opledger_test_key_for_the_bridge_0123456789";
/** The bridge as `npx tsx scripts/opledger.ts mcp` starts it, without npx's own start-up on a busy machine. */
const BRIDGE = { command: process.execPath, args: ["--import", "tsx", CLI, "mcp"] };
/** Starting tsx and the CLI's imports takes seconds on a loaded machine. */
const SLOW = { timeout: 90_000 };

let dir: string;
let effectsFile: string;
let controlFile: string;
let gateway: ChildProcess;
/** The stand-in gateway's base URL (the bridge appends /mcp). */
let gatewayUrl: string;

/** A port nobody listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "stdio-bridge-"));
  effectsFile = path.join(dir, "effects.jsonl");
  controlFile = path.join(dir, "control.json");
  gateway = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "e2e/mcp/test-upstream.ts"), "--http", "0"], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEST_UPSTREAM_BEARER: KEY,
      TEST_UPSTREAM_EFFECTS: effectsFile,
      TEST_UPSTREAM_CONTROL: controlFile,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let out = "";
    gateway.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    gateway.once("exit", (code) => reject(new Error(`the HTTP server exited ${code} before listening`)));
  });
  gatewayUrl = endpoint.replace(/\/mcp$/, "");
}, SLOW.timeout);

afterAll(() => {
  gateway.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function bridgeEnv(overrides: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = { ...getDefaultEnvironment(), OPLEDGER_URL: gatewayUrl, OPLEDGER_API_KEY: KEY };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Runs the bridge as a bare process, optionally writes lines to its stdin, and collects what it did. */
async function runBridge(
  env: Record<string, string>,
  lines: unknown[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(BRIDGE.command, BRIDGE.args, {
    cwd: ROOT,
    env: { ...env, NODE_ENV: "test" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  return { code, stdout, stderr };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bridge-test", version: "1.0.0" } },
};

describe("the stdio bridge", SLOW, () => {
  test("relays initialize, tools/list, tools/call and the gateway's notifications, in one session", async () => {
    const transport = new StdioClientTransport({
      ...BRIDGE,
      cwd: ROOT,
      env: bridgeEnv({}),
      stderr: "pipe",
    });
    let bridgeStderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (bridgeStderr += chunk.toString("utf8")));
    const client = new Client({ name: "bridge-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe("opledger-test-upstream");
      // The server refuses any request without its session id, so each answer below proves the bridge kept it.
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["charge", "lookup", "put_record"]);
      const result = (await client.callTool({
        name: "charge",
        arguments: { customer: "c9", amount: 3 },
      })) as CallToolResult;
      expect(result.content[0]).toEqual({ type: "text", text: "charged c9 3" });
      expect(readEffects(effectsFile).map((e) => e.args)).toEqual([{ customer: "c9", amount: 3 }]);

      const changed = new Promise<void>((resolve) => {
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
      });
      writeControl(controlFile, { disabledTools: ["lookup"] });
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["charge", "put_record"]);
    } finally {
      await client.close();
    }
    expect(bridgeStderr).toBe("");
  });

  test("without OPLEDGER_API_KEY: one sentence on stderr, nothing on stdout, exit code 1 (also through npm run -s)", async () => {
    const direct = await runBridge(bridgeEnv({ OPLEDGER_API_KEY: undefined }));
    expect(direct).toEqual({
      code: 1,
      stdout: "",
      stderr: expect.stringMatching(/^opledger mcp: OPLEDGER_API_KEY is not set;[^\n]*\n$/) as unknown,
    });

    const viaNpm = spawn("npm", ["run", "-s", "opledger", "--", "mcp"], {
      cwd: ROOT,
      env: { ...bridgeEnv({ OPLEDGER_API_KEY: undefined }), NODE_ENV: "test" },
      stdio: ["pipe", "pipe", "ignore"],
    });
    let stdout = "";
    viaNpm.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    expect(await new Promise((resolve) => viaNpm.once("close", resolve))).toBe(1);
    expect(stdout).toBe("");
  });

  test("a key the gateway refuses: one sentence on stderr, nothing on stdout, exit code 1", async () => {
    const run = await runBridge(bridgeEnv({ OPLEDGER_API_KEY: "wrong-key" }), [INITIALIZE]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^opledger mcp: the gateway at \S+\/mcp refused the API key \(HTTP 401\);[^\n]*\n$/);
  });

  test("an unreachable gateway: one sentence on stderr, exit code 1, and the SDK client sees the connection close", async () => {
    const port = await closedPort();
    const env = bridgeEnv({ OPLEDGER_URL: `http://127.0.0.1:${port}` });
    const run = await runBridge(env, [INITIALIZE]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(
      /^opledger mcp: cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+\/mcp \(ECONNREFUSED\);[^\n]*\n$/,
    );

    const client = new Client({ name: "bridge-test", version: "1.0.0" });
    const transport = new StdioClientTransport({ ...BRIDGE, cwd: ROOT, env, stderr: "pipe" });
    await expect(client.connect(transport)).rejects.toThrow(/closed/i);
  });
});
