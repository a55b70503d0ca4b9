// The registry follows its file: a good change adds, replaces and stops upstreams and tells the listeners; a bad change
// is refused with one logged sentence and the previous upstreams stay; a bad file at open runs none until fixed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openUpstreams, type Upstreams } from "./registry";

const TEST_UPSTREAM = path.join(process.cwd(), "lib/services/upstreams/test-upstreams/stdio-upstream.mjs");

let dir: string;
let file: string;
let registry: Upstreams | null = null;
let lines: string[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-registry-"));
  file = path.join(dir, "upstreams.json");
  lines = [];
});

afterEach(async () => {
  await registry?.close();
  registry = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(upstreams: unknown): void {
  fs.writeFileSync(file, JSON.stringify({ upstreams }));
}

function open(): Upstreams {
  registry = openUpstreams(file, { environment: {}, log: (line) => lines.push(line), watchIntervalMs: 50 });
  return registry;
}

describe("openUpstreams", () => {
  it("follows good changes of the file and refuses bad ones", async () => {
    write({ a: { command: "node", args: [TEST_UPSTREAM] } });
    const upstreams = open();
    const changes: string[] = [];
    upstreams.onToolsChanged((name) => changes.push(name));
    expect(upstreams.list().map((u) => u.name)).toEqual(["a"]);
    const pid = await upstreams.callUpstreamTool("a", "ping", {}, { timeoutMs: 5000 });
    expect(pid).toMatchObject({ outcome: "answered" });

    write({ a: { command: "node", args: [TEST_UPSTREAM] }, b: { url: "https://b.example.com/mcp" } });
    await expect.poll(() => upstreams.list().map((u) => u.name), { timeout: 3000 }).toEqual(["a", "b"]);
    expect(changes).toContain("b");
    // The unchanged upstream kept its process.
    expect(await upstreams.callUpstreamTool("a", "ping", {}, { timeoutMs: 5000 })).toEqual(pid);

    write({ a: { command: "node", args: [TEST_UPSTREAM], env: { X: "DATABASE_URL" } } });
    await expect
      .poll(() => lines.find((l) => l.includes("refused")), { timeout: 3000 })
      .toBe(
        'opledger: a change to the upstreams file is refused, and the previous upstreams stay: Upstream "a": ' +
          'env.X must name an OPLEDGER_SECRET_* variable, not "DATABASE_URL".',
      );
    expect(upstreams.list().map((u) => u.name)).toEqual(["a", "b"]);

    write({ c: { command: "node", args: [TEST_UPSTREAM] } });
    await expect.poll(() => upstreams.list().map((u) => u.name), { timeout: 3000 }).toEqual(["c"]);
    expect(changes).toEqual(expect.arrayContaining(["a", "b", "c"]));
    expect(await upstreams.callUpstreamTool("a", "ping", {}, { timeoutMs: 1000 })).toEqual({
      outcome: "not_sent",
      reason: 'There is no upstream "a" in the upstreams file.',
    });
  });

  it("runs no upstreams from a bad file at open, and picks up the fixed file", async () => {
    fs.writeFileSync(file, "{ not json");
    const upstreams = open();
    expect(upstreams.list()).toEqual([]);
    expect(lines[0]).toMatch(
      /^opledger: the upstreams file is refused, so no upstreams run until it is fixed: .* is not valid JSON/,
    );
    write({ a: { command: "node", args: [TEST_UPSTREAM] } });
    await expect.poll(() => upstreams.list().map((u) => u.name), { timeout: 3000 }).toEqual(["a"]);
  });

  it("has no upstreams without a file", async () => {
    registry = openUpstreams(null, { log: (line) => lines.push(line) });
    expect(registry.list()).toEqual([]);
    expect(await registry.tools()).toEqual([]);
    expect(lines).toEqual([]);
  });
});
