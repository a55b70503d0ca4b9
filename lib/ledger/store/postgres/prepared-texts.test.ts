import { describe, expect, it } from "vitest";
import { numbered, PreparedTexts } from "./prepared-texts";

const limits = { maxTexts: 4, maxBatches: 2, maxSeenBatches: 3 };

describe("PreparedTexts", () => {
  it("numbers the placeholders", () => {
    expect(numbered("UPDATE t SET a = ? WHERE id = ? AND v = ?")).toBe("UPDATE t SET a = $1 WHERE id = $2 AND v = $3");
  });

  it("prepares a single command's text at once, under one name for good", () => {
    const texts = new PreparedTexts(limits);
    const first = texts.statementFor("SELECT ?", "single");
    expect(first).toEqual({ name: "opledger_0", text: "SELECT $1" });
    expect(texts.statementFor("SELECT ?", "single")).toBe(first);
    expect(texts.statementFor("SELECT ?", "batch")).toBe(first);
  });

  it("prepares a batch's text on its second sighting, and no more batches than the bound", () => {
    const texts = new PreparedTexts(limits);
    expect(texts.statementFor("b1", "batch")).toBeNull();
    expect(texts.statementFor("b1", "batch")).toMatchObject({ text: "b1" });
    expect(texts.statementFor("b2", "batch")).toBeNull();
    expect(texts.statementFor("b2", "batch")).toMatchObject({ text: "b2" });
    expect(texts.statementFor("b3", "batch")).toBeNull();
    expect(texts.statementFor("b3", "batch")).toBeNull();
  });

  it("forgets batch sightings in bulk past their bound", () => {
    const texts = new PreparedTexts(limits);
    for (const sql of ["b1", "b2", "b3", "b4"]) expect(texts.statementFor(sql, "batch")).toBeNull();
    // b1 to b3 were forgotten when b4 came: b1's next sighting is a first one again.
    expect(texts.statementFor("b1", "batch")).toBeNull();
    expect(texts.statementFor("b4", "batch")).toMatchObject({ text: "b4" });
  });

  it("sends every new text unprepared once the bound is reached, and keeps the prepared ones", () => {
    const texts = new PreparedTexts(limits);
    const kept = ["s0", "s1", "s2", "s3"].map((sql) => texts.statementFor(sql, "single"));
    expect(kept.map((s) => s?.name)).toEqual(["opledger_0", "opledger_1", "opledger_2", "opledger_3"]);
    expect(texts.statementFor("s4", "single")).toBeNull();
    expect(texts.statementFor("b", "batch")).toBeNull();
    expect(texts.statementFor("b", "batch")).toBeNull();
    expect(texts.statementFor("s0", "single")).toBe(kept[0]);
  });
});
