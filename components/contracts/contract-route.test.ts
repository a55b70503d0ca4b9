// The contract pages' URL: a tool name survives the trip through its path, and anything else is not a tool.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contractPath, toolFromParam, versionParam } from "./contract-route";

const toolName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,40}$/);

describe("toolFromParam and contractPath", () => {
  it("reads back every tool name from the path it links to", () => {
    fc.assert(
      fc.property(toolName, fc.constantFrom("", "/edit", "/history"), (tool, suffix) => {
        const path = contractPath(tool, suffix);
        const segment = path.slice("/contracts/".length, path.length - suffix.length);
        expect(segment).not.toContain("/");
        expect(toolFromParam(segment)).toBe(tool);
      }),
    );
  });

  it("refuses what cannot be a tool name, including a broken escape, before any query", () => {
    for (const raw of ["%E0%A4%A", "..%2F..%2Fetc", "has space", "", "-leading-dash", "x".repeat(129)]) {
      expect(toolFromParam(raw)).toBeNull();
    }
  });
});

describe("versionParam", () => {
  it.each([
    ["3", 3],
    [["7", "8"], 7],
    ["0", undefined],
    ["-1", undefined],
    ["1.5", undefined],
    ["1e3", undefined],
    ["1234567890", undefined],
    [undefined, undefined],
  ] as [string | string[] | undefined, number | undefined][])("%j is %s", (raw, version) => {
    expect(versionParam(raw)).toBe(version);
  });
});
