// Reads a JSON request body with a hard size limit and nesting limit, and validates it with a zod schema.
import type { IncomingMessage } from "node:http";
import type { z } from "zod";

export const MAX_BODY_BYTES = 256 * 1024;
/**
 * Arrays and objects inside each other, counting the outermost: deeper input is refused before any schema sees it,
 * because zod, Prisma and JSON.stringify walk values recursively and would overflow the stack (a 500) on the
 * 130,000 levels a 256 KiB body of brackets can hold.
 */
export const MAX_JSON_DEPTH = 64;

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

/** Not streaming, so one decoder serves every request. */
const UTF8 = new TextDecoder("utf-8", { fatal: false });

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
  // A small body arrives in one chunk: decoded as it is, without copying it into a new buffer first.
  return UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/**
 * The same limit on a Node request (the agent plane's), without a Web Request around it. Past the limit the rest of
 * the body is read and dropped rather than the request destroyed (as leaving a `for await` loop would): destroying it
 * resets the connection, and the client never sees the 413.
 */
function readNodeLimited(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.resume();
      reject(tooLarge());
    };
    const onEnd = (): void => {
      stop();
      resolve(UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    const onClose = (): void => onError(new Error("the client closed the request before its body ended"));
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
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

const UNSTORABLE_MESSAGE =
  "The text holds a NUL character or half a surrogate pair (a lone \\ud800-\\udfff escape); text must be valid Unicode without NUL.";

/**
 * Text neither database can store: half a UTF-16 surrogate pair (only a `\ud800`-style escape can carry one; the
 * query engine refuses it) and NUL (PostgreSQL text cannot hold it).
 */
const UNSTORABLE_TEXT = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\u0000/;

const TOO_DEEP_MESSAGE =
  `Arrays and objects are nested more than ${MAX_JSON_DEPTH} levels deep (at most ${MAX_JSON_DEPTH} are accepted, ` +
  "counting the outermost); flatten the value.";

/**
 * Whether JSON text nests deeper than `max`, found by counting brackets outside strings: a linear scan that refuses
 * a 256 KiB tower of brackets in about a millisecond, before JSON.parse spends a third of a second building it.
 */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * Why a decoded body cannot be taken as sent, or null: arrays and objects nested deeper than MAX_JSON_DEPTH, a string
 * or key holding unstorable text, or a key named "__proto__", which zod silently drops from free-form JSON (args,
 * evidence), so the ledger would keep, and compare for idempotency, other args than were sent. Walks without
 * recursion: a body may nest thousands deep.
 */
export function unstorableInput(value: unknown): string | null {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value: v, depth } = next;
    if (typeof v === "string") {
      if (UNSTORABLE_TEXT.test(v)) return UNSTORABLE_MESSAGE;
    } else if (v !== null && typeof v === "object") {
      if (depth + 1 > MAX_JSON_DEPTH) return TOO_DEEP_MESSAGE;
      for (const [key, inner] of Object.entries(v)) {
        if (key === "__proto__") return 'A key is named "__proto__", which cannot be stored; rename it.';
        if (UNSTORABLE_TEXT.test(key)) return UNSTORABLE_MESSAGE;
        pending.push({ value: inner, depth: depth + 1 });
      }
    }
  }
  return null;
}

/** The body as a JSON value within the size and depth limits, or a BodyError; an empty body is `{}`. */
export async function readJsonValue(req: Request): Promise<unknown> {
  // The content type is not checked: `curl -d` sends form encoding by default, and the body is JSON either way.
  return jsonValueOf(await readLimited(req));
}

/** readJsonValue for a Node request. */
export async function readNodeJsonValue(req: IncomingMessage): Promise<unknown> {
  return jsonValueOf(await readNodeLimited(req));
}

function jsonValueOf(text: string): unknown {
  if (jsonTextTooDeep(text)) throw new BodyError(400, "invalid_body", TOO_DEEP_MESSAGE);
  let value: unknown;
  try {
    value = text.length === 0 ? {} : JSON.parse(text);
  } catch (error) {
    // V8 parses deep nesting without recursion; should an engine run out of stack, that is still the body's fault.
    if (error instanceof RangeError) throw new BodyError(400, "invalid_body", TOO_DEEP_MESSAGE);
    throw new BodyError(400, "malformed_json", "The body is not valid JSON.");
  }
  const unstorable = unstorableInput(value);
  if (unstorable) throw new BodyError(400, "invalid_body", unstorable);
  return value;
}

/** `value` checked against `schema`, or a 400 naming every field that is wrong. */
export function validBody<S extends z.ZodType>(value: unknown, schema: S): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors = fieldErrors(parsed.error);
  const summary = Object.entries(errors)
    .map(([field, messages]) => `${field || "body"}: ${messages.join(", ")}`)
    .join("; ");
  throw new BodyError(400, "invalid_body", `The body is invalid: ${summary}.`, errors);
}
