// The draft read from an upstream's hints: PURE only for readOnlyHint, IDEMPOTENT only for idempotent and not
// destructive, and a person's choice for everything else (missing hints included).
import { describe, expect, it } from "vitest";
import { draftFromHints } from "./classify-draft";

type Hints = Parameters<typeof draftFromHints>[0]["annotations"];

describe("draftFromHints", () => {
  it.each<[string, Hints, "PURE" | "IDEMPOTENT" | null]>([
    ["read-only", { readOnlyHint: true }, "PURE"],
    ["read-only wins over destructive", { readOnlyHint: true, destructiveHint: true }, "PURE"],
    ["idempotent and not destructive", { idempotentHint: true, destructiveHint: false }, "IDEMPOTENT"],
    ["idempotent, destructive unsaid (the spec's default is destructive)", { idempotentHint: true }, null],
    ["idempotent but destructive", { idempotentHint: true, destructiveHint: true }, null],
    ["not destructive but not idempotent", { destructiveHint: false }, null],
    ["read-only false", { readOnlyHint: false, idempotentHint: false }, null],
    ["no hints", undefined, null],
    ["open world only", { openWorldHint: true }, null],
  ])("%s", (_name, annotations, effect) => {
    const draft = draftFromHints({ name: "fs__write_file", description: "Writes a file.", annotations });
    expect(draft).toMatchObject({ tool: "fs__write_file", description: "Writes a file.", suggestedEffect: effect });
    expect(draft.why).toMatch(/\.$/);
  });

  it("keeps an absent description empty", () => {
    expect(draftFromHints({ name: "x__y" }).description).toBe("");
  });
});
