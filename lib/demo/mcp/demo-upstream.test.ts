// The demo desk upstream started exactly as the demo upstreams file says, driven by the SDK's Client over stdio; its
// contracts are valid contract bodies for exactly the tools it lists; its faults follow the seed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { contractBodySchema } from "@/lib/ledger/contracts/contract-schema";
import { DeskFaults } from "./desk-faults";
import { demoMcpContracts } from "./demo-mcp-contracts";
import { DEMO_UPSTREAM_NAME, writeDemoUpstreamsFile } from "./demo-upstreams";

const ROOT = path.resolve(__dirname, "../../..");

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "demo-desk-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe("the demo desk upstream", { timeout: 60_000 }, () => {
  test("starts from the upstreams file, lists its tools, commits tickets and times out after every Nth", async () => {
    const file = writeDemoUpstreamsFile(dir, { rootDir: ROOT, seed: 7, hangEvery: 2 });
    const mtime = fs.statSync(file).mtimeMs;
    expect(writeDemoUpstreamsFile(dir, { rootDir: ROOT, seed: 7, hangEvery: 2 })).toBe(file);
    expect(fs.statSync(file).mtimeMs).toBe(mtime); // unchanged contents are not rewritten
    const config = JSON.parse(fs.readFileSync(file, "utf8")) as {
      upstreams: Record<string, { command: string; args: string[]; cwd: string }>;
    };
    const desk = config.upstreams[DEMO_UPSTREAM_NAME];
    if (!desk) throw new Error("no desk upstream in the file");

    const client = new Client({ name: "demo-desk-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ ...desk, env: getDefaultEnvironment(), stderr: "pipe" }));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).sort();
      expect(names).toEqual(["add_note", "close_ticket", "create_ticket", "find_customer"]);
      expect(Object.keys(demoMcpContracts()).sort()).toEqual(names.map((n) => `${DEMO_UPSTREAM_NAME}__${n}`));

      const first = (await client.callTool({
        name: "create_ticket",
        arguments: { customer: "cus_ada", subject: "Card declined" },
      })) as CallToolResult;
      expect(text(first)).toBe("Created ticket T-0001 for cus_ada: Card declined");
      // The second create_ticket (hangEvery 2) creates its ticket, then answers after any contract's timeout.
      await expect(
        client.callTool({ name: "create_ticket", arguments: { customer: "cus_ken", subject: "Refund" } }, undefined, {
          timeout: 1500,
        }),
      ).rejects.toThrow(/timed out/i);
      const state = JSON.parse(fs.readFileSync(path.join(dir, "demo-desk.json"), "utf8")) as {
        tickets: Record<string, unknown>;
      };
      expect(Object.keys(state.tickets)).toEqual(["T-0001", "T-0002"]);

      const unknown = (await client.callTool({
        name: "create_ticket",
        arguments: { customer: "cus_nobody", subject: "x" },
      })) as CallToolResult;
      expect(unknown.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("the demo desk's contracts and faults", () => {
  test("every contract is a valid PUT /api/v1/contracts body, and one tool is observed only", () => {
    const contracts = demoMcpContracts();
    for (const [tool, body] of Object.entries(contracts)) {
      const parsed = contractBodySchema.safeParse(body);
      expect(parsed.success, `${tool}: ${parsed.error?.message ?? ""}`).toBe(true);
    }
    expect(Object.values(contracts).filter((c) => c.mode === "observe")).toHaveLength(1);
  });

  test("one seed gives one sequence of faults; every Nth create_ticket hangs", () => {
    const sequence = (seed: number) => {
      const faults = new DeskFaults({ seed, hangEvery: 3 });
      return Array.from({ length: 40 }, (_, i) =>
        faults.next(["find_customer", "add_note", "close_ticket"][i % 3] ?? ""),
      );
    };
    expect(sequence(11)).toEqual(sequence(11));
    expect(sequence(11)).not.toEqual(sequence(12));
    const faults = new DeskFaults({ seed: 1, hangEvery: 3 });
    expect(Array.from({ length: 6 }, () => faults.next("create_ticket"))).toEqual([
      "none",
      "none",
      "hang_after_commit",
      "none",
      "none",
      "hang_after_commit",
    ]);
  });
});
