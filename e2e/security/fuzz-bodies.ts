// fast-check arbitraries for hostile request bodies: random JSON, one field of a valid body made the wrong type,
// truncated, non-JSON, huge, oversized, odd content types, prototype keys.
import fc from "fast-check";

export const MAX_BODY_BYTES = 256 * 1024;

export interface FuzzBody {
  kind: string;
  bytes: Buffer;
  contentType: string | null;
  /** Sent without Content-Length (chunked), so only the streaming limit can stop it. */
  chunked: boolean;
}

/** Fields a schema lets be null: null is no wrong value for them. */
const NULLABLE_FIELDS = new Set([
  "reconcile",
  "dependency",
  "description",
  "keyRetentionMs",
  // A run's allowance (PUT /api/v1/runs/{runId}): null is "no such bound".
  "deadlineAt",
  "maxRetries",
  "maxBackoffMs",
]);

/**
 * Fields whose schema is "any JSON" (`args`, `evidence`): no value there is the wrong type, so they are never mutated.
 */
const ANY_JSON_FIELDS = new Set(["args", "evidence"]);

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "text/plain;charset=UTF-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=fuzz",
  "application/xml",
  "application/octet-stream",
  "application/json; charset=utf-16",
  null,
] as const;

/**
 * Strings that break naive text handling: NUL, lone surrogates, bidi overrides, BOMs, line separators, combining marks.
 */
export const UNICODE_EDGES = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "\ud83d",
  "\u202e\u0644\u202d",
  "\ufeff",
  "\uffff",
  "\u2028\u2029",
  "\u0085",
  "e\u0301\u0301\u0301\u0301",
  "\ud83d\udc69\u200d\ud83d\udc69\u200d\ud83d\udc67",
  "𝕏\u{10ffff}",
  "\\u0000",
  "%00%ff",
  "'; DROP TABLE operations; --",
  "${7*7}{{7*7}}",
] as const;

const unicodeText = fc.oneof(
  fc.constantFrom(...UNICODE_EDGES),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
);

/** Leaf and object paths of a JSON value, except the any-JSON fields and what is inside them. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return prefix.length ? [prefix] : [];
  const inner = Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    ANY_JSON_FIELDS.has(k) ? [] : paths(v, [...prefix, k]),
  );
  return prefix.length ? [prefix, ...inner] : inner;
}

function getAt(value: unknown, path: string[]): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], value);
}

function setAt(value: unknown, path: string[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  let cursor = copy;
  for (const k of path.slice(0, -1)) cursor = cursor[k] as Record<string, unknown>;
  cursor[path.at(-1)!] = replacement;
  return copy;
}

/** A value of another JSON type than `original`, or one out of every range the schemas allow. */
function wrongValue(original: unknown, nullable: boolean): fc.Arbitrary<unknown> {
  const oversizeString = fc.integer({ min: 4_001, max: 60_000 }).map((n) => "x".repeat(n));
  const hugeArray = fc.integer({ min: 1_000, max: 20_000 }).map((n) => new Array<number>(n).fill(7));
  const common = [hugeArray, fc.array(unicodeText, { maxLength: 3 }), ...(nullable ? [] : [fc.constant(null)])];
  if (typeof original === "string")
    return fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.dictionary(unicodeText, unicodeText, { maxKeys: 2 }),
      oversizeString,
      ...common,
    );
  if (typeof original === "number") {
    return fc.oneof(
      fc.integer({ min: -1_000_000_000, max: -1 }),
      fc.double({ noInteger: true, noDefaultInfinity: true, noNaN: true }),
      fc.constantFrom(1e21, Number.MAX_SAFE_INTEGER + 2, -0.5),
      fc.integer().map(String),
      unicodeText,
      fc.boolean(),
      ...common,
    );
  }
  if (typeof original === "boolean")
    return fc.oneof(fc.integer(), fc.constantFrom("true", "false", "1", ""), unicodeText, ...common);
  if (original === null) return fc.oneof(fc.integer(), fc.boolean(), unicodeText, hugeArray);
  return fc.oneof(fc.integer(), fc.boolean(), unicodeText, oversizeString, ...common);
}

/** The valid body with exactly one field (found anywhere in it) given a wrong value. */
function mutated(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const fields = paths(valid);
  return fc
    .constantFrom(...fields)
    .chain((path) =>
      wrongValue(getAt(valid, path), NULLABLE_FIELDS.has(path.at(-1)!)).map((v) =>
        JSON.stringify(setAt(valid, path, v)),
      ),
    );
}

const PLACEHOLDER = "\u0001fuzz-key\u0001";

/**
 * An unknown key in the body or in one of its objects (never inside an any-JSON field, where every key is valid):
 * a plain one, or one of the keys that pollute prototypes in naive merges, written as raw JSON text because
 * JSON.stringify would not keep an own "__proto__".
 */
function extraKey(valid: Record<string, unknown>, protoKey = true): fc.Arbitrary<string> {
  const polluting = ["constructor", "prototype", "isAdmin", "scopes", "role", ...(protoKey ? ["__proto__"] : [])];
  const objects = [
    [],
    ...paths(valid).filter((p) => {
      const v = getAt(valid, p);
      return v !== null && typeof v === "object" && !Array.isArray(v);
    }),
  ];
  return fc
    .record({
      at: fc.constantFrom(...objects),
      key: fc.oneof(fc.constantFrom(...polluting), unicodeText),
      value: fc.constantFrom(
        '{"isAdmin":true,"role":"admin"}',
        '{"prototype":{"polluted":1}}',
        "true",
        '"admin"',
        "[]",
      ),
    })
    .map(({ at, key, value }) => {
      const target = at.length === 0 ? valid : getAt(valid, at);
      const withPlaceholder =
        at.length === 0
          ? { ...valid, [PLACEHOLDER]: 0 }
          : setAt(valid, at, { ...(target as object), [PLACEHOLDER]: 0 });
      return JSON.stringify(withPlaceholder).replace(
        `${JSON.stringify(PLACEHOLDER)}:0`,
        `${JSON.stringify(key)}:${value}`,
      );
    });
}

function truncated(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const text = JSON.stringify(valid);
  return fc.integer({ min: 1, max: text.length - 1 }).map((n) => text.slice(0, n));
}

const nonJson = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }).filter((s) => {
    try {
      const v: unknown = JSON.parse(s);
      return v === null || typeof v !== "object";
    } catch {
      return true;
    }
  }),
  fc.constantFrom(
    "tool=x&args=1",
    "<operation><tool>x</tool></operation>",
    '--fuzz\r\nContent-Disposition: form-data; name="tool"\r\n\r\nx\r\n--fuzz--',
    "{",
    "}",
    "[",
    "{'tool': 'x'}",
    '{"a":1}}',
    "NaN",
    "undefined",
    "\ufeff{",
    '{"a":"\\ud800"',
    '{"a":1,}',
  ),
);

function oversized(valid: Record<string, unknown>): fc.Arbitrary<{ text: string; chunked: boolean }> {
  return fc
    .record({ extra: fc.integer({ min: 1, max: 64 * 1024 }), chunked: fc.boolean() })
    .map(({ extra, chunked }) => ({
      text: JSON.stringify({ ...valid, padding: "p".repeat(MAX_BODY_BYTES + extra) }),
      chunked,
    }));
}

const hugeJson = fc.oneof(
  fc.integer({ min: 10_000, max: 120_000 }).map((n) => JSON.stringify(new Array<number>(n).fill(1))),
  fc.integer({ min: 10_000, max: 200_000 }).map((n) => JSON.stringify("s".repeat(n))),
  fc.integer({ min: 100, max: 5_000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
  fc.integer({ min: 100, max: 5_000 }).map((depth) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth)),
);

/** Raw bytes that are not UTF-8 at all (overlong forms, lone continuation bytes), around a JSON-looking frame. */
const badUtf8 = fc
  .uint8Array({ minLength: 1, maxLength: 64 })
  .map((bytes) =>
    Buffer.concat([
      Buffer.from('{"tool":"'),
      Buffer.from([0xc0, 0x80, 0xff, 0xfe]),
      Buffer.from(bytes),
      Buffer.from('"}'),
    ]),
  );

/**
 * One hostile body for a route whose valid body is `valid` (or none: then only bodies that need no base). Every body
 * this returns is invalid by construction; a 2xx answer means the server accepted something it must not.
 */
export function hostileBody(valid: Record<string, unknown> | undefined): fc.Arbitrary<FuzzBody> {
  const base = valid ?? { tool: "fuzz", n: 1 };
  const text = (kind: string, arb: fc.Arbitrary<string>, weight: number) => ({
    weight,
    arbitrary: arb.map((t) => ({ kind, bytes: Buffer.from(t), chunked: false })),
  });
  const shaped = [
    text(
      "random JSON",
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? "null"),
      6,
    ),
    text("truncated JSON", truncated(base), 3),
    text("not JSON", nonJson, 3),
    text("huge JSON", hugeJson, 1),
    { weight: 1, arbitrary: badUtf8.map((bytes) => ({ kind: "invalid UTF-8", bytes, chunked: false })) },
    {
      weight: 1,
      arbitrary: oversized(base).map(({ text: t, chunked }) => ({
        kind: chunked ? "oversized, chunked" : "oversized",
        bytes: Buffer.from(t),
        chunked,
      })),
    },
    ...(valid ? [text("one field wrong", mutated(valid), 8), text("extra or prototype key", extraKey(valid), 3)] : []),
  ];
  return fc
    .record({ body: fc.oneof(...shaped), contentType: fc.constantFrom(...CONTENT_TYPES) })
    .map(({ body, contentType }) => ({ ...body, contentType }));
}

/** Every query parameter a GET route reads (lib/agent-plane/schemas.ts listQuery, the console routes' own schemas). */
export const QUERY_NAMES = [
  "phase",
  "tool",
  "effect",
  "runId",
  "agentId",
  "age",
  "cursor",
  "limit",
  "order",
  "window",
  "subjectType",
  "subjectId",
  "actorId",
  "action",
  "since",
] as const;

/** Percent-encodes the UTF-8 of `s` (a lone surrogate becomes U+FFFD, as a browser's form encoding does). */
function percentEncoded(s: string): string {
  return [...Buffer.from(s, "utf8")]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0")}`,
    )
    .join("");
}

/** Values that break naive query handling: bad escapes, huge numbers, arrays, prototype names, SQL, path tricks. */
const queryValue = fc.oneof(
  unicodeText.map(percentEncoded),
  fc.constantFrom(
    "",
    "%",
    "%ED%A0%80",
    "%C0%80",
    "%ZZ",
    "%E0%A4%A",
    "%00",
    "%ff%fe",
    "-1",
    "0",
    "1e309",
    "NaN",
    "Infinity",
    "200.5",
    "999999999999999999999999",
    "0x10",
    "true",
    "null",
    "[]",
    "{}",
    "__proto__",
    "constructor",
    "UNKNOWN,PLANNED",
    "PLANNED%00",
    "01ZZZZZZZZZZZZZZZZZZZZZZZZ",
    "9999999999999-x",
    "'%20OR%201=1--",
    "..%2F..%2Fetc%2Fpasswd",
    "1h",
    "-5m",
    "99999999d",
  ),
  fc.integer({ min: 1, max: 8_000 }).map((n) => "q".repeat(n)),
  fc.integer().map(String),
);

/**
 * A raw query string (without "?"): known parameter names and random ones, repeated, with `[]` suffixes, empty,
 * without "=", with hostile values.
 */
export function hostileQuery(): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...QUERY_NAMES) },
    { weight: 1, arbitrary: fc.constantFrom(...QUERY_NAMES).map((n) => `${n}[]`) },
    { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "_rsc", "__nextDataReq", "nxtPid") },
    { weight: 1, arbitrary: unicodeText.map(percentEncoded) },
  );
  const pair = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(name, queryValue).map(([n, v]) => `${n}=${v}`) },
    { weight: 1, arbitrary: name },
    { weight: 1, arbitrary: fc.constantFrom("&", "=", "==", "&&", "=&=") },
  );
  return fc.array(pair, { minLength: 1, maxLength: 8 }).map((pairs) => pairs.join("&"));
}

/**
 * One hostile input for a console server action whose valid input is `valid`: random JSON, one field wrong, an
 * extra or prototype key, deep nesting. Never valid by construction (the action must not run).
 */
export function hostileActionInput(valid: Record<string, unknown>): fc.Arbitrary<{ kind: string; json: string }> {
  const tagged = (kind: string, arb: fc.Arbitrary<string>, weight: number) => ({
    weight,
    arbitrary: arb.map((json) => ({ kind, json })),
  });
  return fc.oneof(
    tagged(
      "random JSON",
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null"),
      4,
    ),
    tagged("one field wrong", mutated(valid), 6),
    // No "__proto__": React's decoder of a server action's arguments deletes that key before the action runs, so the
    // action receives the valid input and rightly runs (the API's own body check refuses the key: the body fuzz).
    tagged("extra or prototype key", extraKey(valid, false), 3),
    tagged(
      "deep nesting",
      fc
        .integer({ min: 65, max: 2_000 })
        .map((depth) =>
          JSON.stringify({ ...valid, nested: 1 }).replace(/1}$/, `${"[".repeat(depth)}${"]".repeat(depth)}}`),
        ),
      1,
    ),
  );
}
