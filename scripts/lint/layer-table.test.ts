// The layer check: a file's layer is its longest prefix, an arrow the table does not list is named, and every folder
// of lib/ is a layer (a new folder must say what it may import).
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { LAYERS, layerOf, wrongArrows } from "./layer-table";

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

  it("holds the pure core to nothing of the project", () => {
    expect(wrongArrows(new Map([["lib/retry-gate/gate.ts", ["lib/platform/config/env.ts"]]]))).toHaveLength(1);
  });
});

describe("LAYERS", () => {
  it("lists every folder of lib/ but the generated client", () => {
    const folders = fs
      .readdirSync("lib", { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "generated")
      .map((entry) => `lib/${entry.name}`);
    expect(folders.filter((folder) => !(folder in LAYERS))).toEqual([]);
  });

  it("lets a layer import only layers the table knows", () => {
    const unknown = Object.values(LAYERS).flatMap((layer) => layer.mayImport.filter((to) => !(to in LAYERS)));
    expect(unknown).toEqual([]);
  });
});
