// A gateway server for the MCP specs: its own opledger instance on a fresh database, with three upstreams behind it
// (the reference filesystem and everything servers, and the repository's test upstream that counts its effects), and
// an SDK client that speaks to it as any MCP client would.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parseCreatedKey } from "../../fixtures/api";
import { ServerProcess } from "../../fixtures/server-process";
import { REPO_ROOT, TEST_ADMIN_EMAIL, TEST_BOOTSTRAP_API_KEY } from "../../fixtures/test-env";
import { freshDatabase, type FreshDatabase } from "../../scale-out/support/fresh-database";
import { readCalls, readEffects, writeControl, type TestUpstreamControl } from "../test-upstream-effects";

const run = promisify(execFile);
const bin = (pkg: string) => path.join(REPO_ROOT, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");

/** The fields of an operation the MCP specs look at. */
export interface GatewayOperation {
  phase: string;
  via: string | null;
  attempt: number;
  runId: string | null;
  repeatOf: string | null;
  deliveredAt: string | null;
  /** The W3C trace id of the tools/call that planned it (its params._meta.traceparent), or null. */
  traceId: string | null;
}

export class GatewayWorld {
  private constructor(
    readonly dir: string,
    readonly database: FreshDatabase,
    readonly port: number,
    private env: Record<string, string>,
    public server: ServerProcess,
  ) {}

  /** The folder the filesystem upstream may write in. */
  get files(): string {
    return path.join(this.dir, "files");
  }

  get url(): string {
    return this.server.url;
  }

  static async start(port: number): Promise<GatewayWorld> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-mcp-e2e-"));
    fs.mkdirSync(path.join(dir, "files"));
    const upstreamsFile = path.join(dir, "upstreams.json");
    fs.writeFileSync(
      upstreamsFile,
      JSON.stringify({
        upstreams: {
          fs: { command: process.execPath, args: [bin("server-filesystem"), path.join(dir, "files")] },
          everything: { command: process.execPath, args: [bin("server-everything"), "stdio"] },
          test: {
            command: process.execPath,
            args: ["--import", "tsx", path.join(REPO_ROOT, "e2e", "mcp", "test-upstream.ts")],
            cwd: REPO_ROOT,
            env: {
              TEST_UPSTREAM_EFFECTS: "OPLEDGER_SECRET_E2E_EFFECTS",
              TEST_UPSTREAM_CALLS: "OPLEDGER_SECRET_E2E_CALLS",
              TEST_UPSTREAM_CONTROL: "OPLEDGER_SECRET_E2E_CONTROL",
            },
          },
        },
      }),
    );
    const env = {
      OPLEDGER_MCP_UPSTREAMS: upstreamsFile,
      OPLEDGER_SECRET_E2E_EFFECTS: path.join(dir, "effects.jsonl"),
      OPLEDGER_SECRET_E2E_CALLS: path.join(dir, "calls.jsonl"),
      OPLEDGER_SECRET_E2E_CONTROL: path.join(dir, "control.json"),
      // No trace link template: this console shows each trace id with a Copy button (gateway.spec.ts looks at it).
      OPLEDGER_TRACE_URL: "",
    };
    const database = await freshDatabase(`mcp_gateway_${port}`);
    const server = await ServerProcess.start({ name: "MCP gateway", port, databaseUrl: database.url, env });
    return new GatewayWorld(dir, database, port, env, server);
  }

  /**
   * SIGKILL, as a crashed machine; then, once `downMs` have passed, the same instance again on the same database, with
   * `env` added to its environment.
   */
  async killAndRestart(options: { downMs?: number; env?: Record<string, string> } = {}): Promise<void> {
    await this.server.stop("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, options.downMs ?? 0));
    this.server = await ServerProcess.start({
      name: "MCP gateway (restarted)",
      port: this.port,
      databaseUrl: this.database.url,
      env: { ...this.env, ...options.env },
    });
  }

  async stop(): Promise<void> {
    await this.server.stop("SIGTERM");
    await this.database.drop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  effects() {
    return readEffects(this.env.OPLEDGER_SECRET_E2E_EFFECTS ?? "");
  }

  calls() {
    return readCalls(this.env.OPLEDGER_SECRET_E2E_CALLS ?? "");
  }

  control(control: TestUpstreamControl): void {
    writeControl(this.env.OPLEDGER_SECRET_E2E_CONTROL ?? "", control);
  }

  /** A contract through the HTTP API, with the bootstrap key (admin scope). */
  async contract(tool: string, body: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${this.url}/api/v1/contracts/${tool}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        idempotencyKey: "optional",
        reconcile: { method: "manual" },
        approval: "not_required",
        maxAttempts: 3,
        backoff: { baseMs: 50, maxMs: 500 },
        ...body,
      }),
    });
    if (!response.ok) throw new Error(`PUT contract ${tool}: ${response.status} ${await response.text()}`);
  }

  async operation(id: string): Promise<GatewayOperation> {
    const response = await fetch(`${this.url}/api/v1/operations/${id}`, {
      headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` },
    });
    if (!response.ok) throw new Error(`GET operation ${id}: ${response.status}`);
    return (await response.json()) as GatewayOperation;
  }

  /**
   * A new key in this gateway's database, made by the key commands' library path (the CLI's start-up migration cannot
   * run beside the live server): an agent key, or an operator key that acts as the e2e admin, a person.
   */
  async key(scope: "agent" | "operator"): Promise<string> {
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(REPO_ROOT, "e2e", "api", "support", "api-key-cli.ts"),
        "create-api-key",
        "--name",
        `mcp-e2e-${scope}-${Date.now()}`,
        "--scopes",
        scope,
        ...(scope === "operator" ? ["--owner", TEST_ADMIN_EMAIL] : []),
      ],
      { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: this.database.url }, timeout: 60_000 },
    );
    return parseCreatedKey(stdout).key;
  }

  /** A person's decision on an operation through the HTTP API, with an operator key (the human gate). */
  async decide(id: string, decision: "approve" | "reject", personKey: string, reason: string): Promise<void> {
    const response = await fetch(`${this.url}/api/v1/operations/${id}/${decision}`, {
      method: "POST",
      headers: { authorization: `Bearer ${personKey}`, "content-type": "application/json" },
      body: JSON.stringify({ reason }),
    });
    if (!response.ok) throw new Error(`POST ${decision} ${id}: ${response.status} ${await response.text()}`);
  }

  /** An MCP client connected through the gateway with `key` (the bootstrap key has the agent scope). */
  async client(key = TEST_BOOTSTRAP_API_KEY): Promise<Client> {
    const client = new Client({ name: "opledger-e2e", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${this.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    return client;
  }
}

export const codeOf = (r: CallToolResult): unknown => r._meta?.["opledger/code"];
export const operationOf = (r: CallToolResult): string => String(r._meta?.["opledger/operation"]);
export const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
