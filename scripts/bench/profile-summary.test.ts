import { describe, expect, it } from "vitest";
import { areaOf, summarize, type CallFrame, type CpuProfile } from "./profile-summary";

const frame = (functionName: string, url = ""): CallFrame => ({ functionName, url, lineNumber: 0, columnNumber: 0 });

/** root → handler (lib/agent-plane) → node:internal write; root → Next → zod; plus GC, idle and a bare Node timer. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 4, 6, 7, 8] },
    { id: 2, callFrame: frame("handle", "file:///repo/lib/agent-plane/router.ts"), children: [3] },
    { id: 3, callFrame: frame("writeGeneric", "node:internal/stream_base_commons") },
    {
      id: 4,
      callFrame: frame("handleRequest", "file:///repo/node_modules/next/dist/server/base-server.js"),
      children: [5],
    },
    { id: 5, callFrame: frame("parse", "file:///repo/node_modules/zod/v4/core/parse.js") },
    { id: 6, callFrame: frame("(garbage collector)") },
    { id: 7, callFrame: frame("(idle)") },
    { id: 8, callFrame: frame("listOnTimeout", "node:internal/timers") },
  ],
  samples: [3, 3, 5, 4, 6, 7, 7, 8],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe("areaOf", () => {
  it("names the area of a source path, opledger's rooms before the packages", () => {
    expect(areaOf("/repo/lib/agent-plane/router.ts")).toBe("agent plane (lib/agent-plane)");
    expect(areaOf("/repo/lib/ledger/store/sqlite/batch.ts")).toBe("ledger (lib/ledger, lib/platform/db)");
    expect(areaOf("/repo/node_modules/next/dist/server/base-server.js")).toBe("Next.js");
    expect(areaOf("/repo/node_modules/zod/v4/core/parse.js")).toBe("zod");
    expect(areaOf("/repo/node_modules/undici/lib/fetch.js")).toBe("package undici");
    expect(areaOf("/repo/node_modules/@hono/node-server/dist/index.js")).toBe("package @hono/node-server");
    expect(areaOf("/repo/scripts/next-server.mjs")).toBe("other opledger code");
    expect(areaOf("node:internal/timers")).toBeNull();
  });
});

describe("summarize", () => {
  it("gives each busy sample to the nearest frame of a known area above it and leaves idle out", () => {
    const { samples, ms, busy } = summarize(profile, (f) => f.url.replace("file://", ""));
    expect(busy).toBe(6);
    expect(Object.fromEntries(samples)).toEqual({
      "agent plane (lib/agent-plane)": 2,
      zod: 1,
      "Next.js": 1,
      "garbage collection": 1,
      "Node itself (no package or opledger frame above)": 1,
    });
    expect(ms.get("agent plane (lib/agent-plane)")).toBe(2);
  });

  it("reads a frame's source through the mapper (a bundled chunk mapped back to lib/)", () => {
    const bundled: CpuProfile = {
      nodes: [{ id: 1, callFrame: frame("chunk", "file:///repo/.next-bench/server/chunks/a.js") }],
      samples: [1],
      timeDeltas: [500],
    };
    const { samples } = summarize(bundled, () => "/repo/lib/agent-plane/mcp/gateway/call-tool.ts");
    expect(Object.fromEntries(samples)).toEqual({ "MCP gateway and upstreams (lib/agent-plane/mcp)": 1 });
  });
});
