// Gateway tool names: built as <upstream>__<tool>, split at the first "__", and only in the characters clients accept.
import { describe, expect, it } from "vitest";
import { gatewayToolName, parseGatewayToolName } from "./tool-names";

describe("gateway tool names", () => {
  it("joins the upstream and the tool with two underscores", () => {
    expect(gatewayToolName("fs", "read_file")).toBe("fs__read_file");
  });

  it.each([
    ["fs__read_file", { upstream: "fs", tool: "read_file" }],
    ["fs__a__b", { upstream: "fs", tool: "a__b" }],
    ["my-mcp__echo", { upstream: "my-mcp", tool: "echo" }],
    ["fs___x", { upstream: "fs", tool: "_x" }],
  ])("%s splits at the first __", (name, parts) => {
    expect(parseGatewayToolName(name)).toEqual(parts);
  });

  it.each(["fs", "__echo", "fs__", "fs__read.file", "fs__read file", `fs__${"x".repeat(125)}`, ""])(
    "%s is not a gateway tool name",
    (name) => {
      expect(parseGatewayToolName(name)).toBeNull();
    },
  );

  it("round-trips", () => {
    expect(parseGatewayToolName(gatewayToolName("everything", "get-sum"))).toEqual({
      upstream: "everything",
      tool: "get-sum",
    });
  });
});
