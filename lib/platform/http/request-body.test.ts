// A body read as the agent plane reads it (readNodeJsonValue, then validBody) refuses text no database can store
// (lone surrogates, NUL), __proto__ keys and nesting deeper than 64 with a 400, and keeps every other string as sent.
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BodyError,
  jsonTextTooDeep,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  readNodeJsonValue,
  unstorableInput,
  validBody,
} from "./request-body";

const schema = z.object({ note: z.json() }).strict();

/** A Node request carrying `text`, as the agent plane receives it. */
function body(text: string): IncomingMessage {
  return Object.assign(Readable.from([Buffer.from(text)]), { headers: {} }) as unknown as IncomingMessage;
}

async function readJson<S extends z.ZodType>(req: IncomingMessage, schema: S): Promise<z.infer<S>> {
  return validBody(await readNodeJsonValue(req), schema);
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

/** `depth` arrays and objects inside each other, alternating, around `inner`. */
function nested(depth: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { k: value };
  return value;
}

describe("nesting depth", () => {
  it.each([
    ["64 arrays", "[".repeat(64) + "]".repeat(64), false],
    ["65 arrays", "[".repeat(65) + "]".repeat(65), true],
    ["64 objects", '{"a":'.repeat(64) + "1" + "}".repeat(64), false],
    ["65 objects", '{"a":'.repeat(65) + "1" + "}".repeat(65), true],
    ["brackets inside strings", `[${JSON.stringify("[".repeat(500) + '\\"{{{')}]`, false],
    ["an escaped quote that does not end the string", String.raw`["\"[[[[\\", [[]]]`, false],
  ])("the text scan counts %s", (_label, text, tooDeep) => {
    expect(jsonTextTooDeep(text)).toBe(tooDeep);
    expect(unstorableInput(JSON.parse(text)) !== null).toBe(tooDeep);
  });

  it("refuses a 256 KiB body of nested arrays as invalid_body, quickly and without overflowing the stack", async () => {
    const half = MAX_BODY_BYTES / 2;
    const started = performance.now();
    const error = await readJson(body("[".repeat(half) + "]".repeat(half)), schema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyError);
    expect(error).toMatchObject({ status: 400, code: "invalid_body" });
    expect((error as Error).message).toMatch(/nested more than 64 levels/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("refuses deep nesting anywhere in the body, also when the text is not balanced", async () => {
    const deepArgs = `{"note":{"list":[1,2,${"[".repeat(70)}${"]".repeat(70)}]}}`;
    await expect(readJson(body(deepArgs), schema)).rejects.toMatchObject({ status: 400, code: "invalid_body" });
    await expect(readJson(body("[".repeat(100)), schema)).rejects.toMatchObject({ status: 400, code: "invalid_body" });
    await expect(readJson(body("[".repeat(10)), schema)).rejects.toMatchObject({ code: "malformed_json" });
  });

  it("keeps a body exactly 64 deep, counting the outermost object", async () => {
    const note = nested(MAX_JSON_DEPTH - 1);
    expect(await readJson(body(JSON.stringify({ note })), schema)).toEqual({ note });
  });

  it("walks a parsed value of any depth without recursion and stops at the limit", () => {
    expect(unstorableInput(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(unstorableInput(nested(MAX_JSON_DEPTH + 1))).toMatch(/nested more than 64 levels/);
    expect(unstorableInput(nested(200_000))).toMatch(/nested more than 64 levels/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(unstorableInput(cycle)).toMatch(/nested more than 64 levels/);
  });
});

describe("unstorableInput", () => {
  it("finds unstorable text at any depth it accepts, in keys as in values", () => {
    expect(unstorableInput(nested(MAX_JSON_DEPTH, "a\u0000b"))).toMatch(/NUL/);
    expect(unstorableInput({ reason: "fine", seen: { phase: "UNKNOWN" }, list: ["\ud83d\ude00"] })).toBeNull();
    expect(unstorableInput([{ ["\udc00"]: 1 }])).toMatch(/surrogate/);
    expect(unstorableInput(JSON.parse('{"a":{"__proto__":1}}'))).toMatch(/__proto__/);
    expect(unstorableInput({ constructor: 1, prototype: 2 })).toBeNull();
  });
});
