// readJson refuses text no database can store (lone surrogates, NUL) and __proto__ keys with a 400, and keeps every
// other string as sent.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BodyError, readJson, unstorableInput } from "./request-body";

const schema = z.object({ note: z.json() }).strict();

function body(text: string): Request {
  return new Request("http://opledger.test/api/v1/x", { method: "POST", body: text });
}

describe("readJson", () => {
  it.each([
    ["a lone high surrogate", String.raw`{"note":"\ud800"}`],
    ["a lone low surrogate", String.raw`{"note":"a\udfffb"}`],
    ["a reversed pair", String.raw`{"note":"\ude00\ud83d"}`],
    ["a NUL", String.raw`{"note":"a\u0000b"}`],
    ["a lone surrogate in a key", String.raw`{"note":{"\ud800":1}}`],
    ["a NUL deep in an array", String.raw`{"note":[[["\u0000"]]]}`],
    ["a __proto__ key in free-form JSON, which zod would drop", `{"note":{"a":1,"__proto__":{"admin":true}}}`],
  ])("refuses %s as invalid_body", async (_label, text) => {
    const error = await readJson(body(text), schema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyError);
    expect(error).toMatchObject({ status: 400, code: "invalid_body" });
  });

  it.each([
    ["an escaped surrogate pair", String.raw`{"note":"\ud83d\ude00"}`, "😀"],
    ["a backslash followed by u0000 as text", String.raw`{"note":"\\u0000"}`, String.raw`\u0000`],
    ["bidi controls and a BOM character", String.raw`{"note":"\u202e\ufeffx"}`, "\u202e\ufeffx"],
    ["constructor and prototype keys", `{"note":{"constructor":{"prototype":1}}}`, { constructor: { prototype: 1 } }],
  ])("keeps %s", async (_label, text, note) => {
    expect(await readJson(body(text), schema)).toEqual({ note });
  });
});

describe("unstorableInput", () => {
  it("finds unstorable text at any depth, in keys as in values, without recursion", () => {
    let deep: unknown = "a\u0000b";
    for (let i = 0; i < 100_000; i += 1) deep = i % 2 ? [deep] : { k: deep };
    expect(unstorableInput(deep)).toMatch(/NUL/);
    expect(unstorableInput({ reason: "fine", seen: { phase: "UNKNOWN" }, list: ["\ud83d\ude00"] })).toBeNull();
    expect(unstorableInput([{ ["\udc00"]: 1 }])).toMatch(/surrogate/);
    expect(unstorableInput(JSON.parse('{"a":{"__proto__":1}}'))).toMatch(/__proto__/);
    expect(unstorableInput({ constructor: 1, prototype: 2 })).toBeNull();
  });
});
