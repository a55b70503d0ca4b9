// Reads a JSON request body with a hard size limit, and validates it with a zod schema.
import type { z } from "zod";

export const MAX_BODY_BYTES = 256 * 1024;

export class BodyError extends Error {
  override name = "BodyError";
  constructor(
    readonly status: 400 | 413,
    readonly code: "malformed_json" | "payload_too_large" | "invalid_body",
    message: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
  }
}

async function readLimited(req: Request): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

function tooLarge(): BodyError {
  return new BodyError(413, "payload_too_large", `The body is larger than ${MAX_BODY_BYTES} bytes.`);
}

/** Field path -> messages, "" for the body itself. */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join(".");
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

/**
 * Text neither database can store: half a UTF-16 surrogate pair (only a `\ud800`-style escape can carry one; the
 * query engine refuses it) and NUL (PostgreSQL text cannot hold it).
 */
const UNSTORABLE_TEXT = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\u0000/;

export async function readJson<S extends z.ZodType>(req: Request, schema: S): Promise<z.infer<S>> {
  // The content type is not checked: `curl -d` sends form encoding by default, and the body is JSON either way.
  const text = await readLimited(req);
  let value: unknown;
  let unstorable = false;
  let protoKey = false;
  try {
    value =
      text.length === 0
        ? {}
        : JSON.parse(text, (key, v: unknown) => {
            if (UNSTORABLE_TEXT.test(key) || (typeof v === "string" && UNSTORABLE_TEXT.test(v))) unstorable = true;
            if (key === "__proto__") protoKey = true;
            return v;
          });
  } catch {
    throw new BodyError(400, "malformed_json", "The body is not valid JSON.");
  }
  if (unstorable) {
    throw new BodyError(400, "invalid_body", "The body holds a NUL character or half a surrogate pair (a lone \\ud800-\\udfff escape); text must be valid Unicode without NUL.");
  }
  // zod drops "__proto__" from free-form JSON (args, evidence) without a word: the ledger would keep, and compare, other args than were sent.
  if (protoKey) throw new BodyError(400, "invalid_body", 'The body has a key named "__proto__", which cannot be stored; rename it.');
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error);
    const summary = Object.entries(errors)
      .map(([field, messages]) => `${field || "body"}: ${messages.join(", ")}`)
      .join("; ");
    throw new BodyError(400, "invalid_body", `The body is invalid: ${summary}.`, errors);
  }
  return parsed.data;
}
