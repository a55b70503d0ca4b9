// The layer check: a file's layer is its longest prefix, an arrow the table does not list is named, and every folder
// of lib/ (of lib/platform and lib/services, each folder) is a layer: a new folder must say what it may import.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { LAYERS, layerOf, ROOMS, wrongArrows } from "./layer-table";

describe("layerOf", () => {
  it("takes the longest prefix", () => {
    expect(layerOf("app/api/console/counts/route.ts")).toBe("app/api");
    expect(layerOf("app/(console)/layout.tsx")).toBe("app");
    expect(layerOf("lib/ledger/commands/plan.ts")).toBe("lib/ledger");
  });

  it("leaves tools and root files out", () => {
    expect(layerOf("lib/ledger/commands/plan.test.ts")).toBeNull();
    expect(layerOf("e2e/api/operations.spec.ts")).toBeNull();
    expect(layerOf("scripts/launch.ts")).toBeNull();
    expect(layerOf("proxy.ts")).toBeNull();
  });
});

describe("wrongArrows", () => {
  it("names an upward arrow and passes the listed ones", () => {
    const graph = new Map([
      ["lib/ledger/commands/plan.ts", ["lib/retry-gate/gate.ts", "lib/platform/http/problem.ts"]],
      ["lib/retry-gate/gate.ts", ["lib/retry-gate/types.ts"]],
      ["components/ui/x.tsx", ["lib/platform/db/prisma.ts"]],
      ["lib/ledger/commands/plan.test.ts", ["lib/platform/http/problem.ts"]],
    ]);
    expect(wrongArrows(graph)).toEqual([
      {
        from: "lib/ledger",
        to: "lib/platform/http",
        file: "lib/ledger/commands/plan.ts",
        imports: "lib/platform/http/problem.ts",
      },
      { from: "components", to: "lib/platform/db", file: "components/ui/x.tsx", imports: "lib/platform/db/prisma.ts" },
    ]);
  });

  it("keeps the two planes apart", () => {
    const graph = new Map([
      ["lib/console/console-route.ts", ["lib/agent-plane/entry.ts"]],
      ["lib/agent-plane/mcp/gateway/call-tool.ts", ["lib/console/upstreams-view.ts"]],
    ]);
    expect(wrongArrows(graph).map((arrow) => `${arrow.from} → ${arrow.to}`)).toEqual([
      "lib/console → lib/agent-plane",
      "lib/agent-plane → lib/console",
    ]);
  });

  it("holds the pure core to nothing of the project", () => {
    expect(wrongArrows(new Map([["lib/retry-gate/gate.ts", ["lib/platform/config/env.ts"]]]))).toHaveLength(1);
  });
});

describe("LAYERS", () => {
  const folders = (dir: string) =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "generated")
      .map((entry) => `${dir}/${entry.name}`);

  it("lists every folder of lib/, and every folder of a room that holds several layers", () => {
    const rooms: readonly string[] = ROOMS;
    const layers = folders("lib").flatMap((folder) => (rooms.includes(folder) ? folders(folder) : [folder]));
    expect(layers.filter((folder) => !(folder in LAYERS))).toEqual([]);
  });

  it("keeps a room's files in its layers' folders", () => {
    const loose = ROOMS.flatMap((room) =>
      fs.readdirSync(room, { withFileTypes: true }).filter((entry) => !entry.isDirectory()),
    );
    expect(loose.map((entry) => entry.name)).toEqual([]);
  });

  it("lets a layer import only layers the table knows", () => {
    const unknown = Object.values(LAYERS).flatMap((layer) => layer.mayImport.filter((to) => !(to in LAYERS)));
    expect(unknown).toEqual([]);
  });
});
