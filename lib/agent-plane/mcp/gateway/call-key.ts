// The idempotency key of a gateway call: the client's own, or the contract's `keyFrom` applied to the arguments.
import { canonicalJson, sha256 } from "@/lib/ledger/canonical-json";

/**
 * `byDefault`: the key names the call within its run (no client key, no template), so the same call made again after
 * its answer was delivered is a new operation (lib/ledger/commands/repeated-call.ts); any other key is the same
 * operation, always.
 */
export type CallKey = { key: string; byDefault: boolean } | { problem: string };

/** The longest key the gateway makes from a template; a longer one is hashed so it still fits an index. */
const MAX_TEMPLATE_KEY = 200;
const PLACEHOLDER = /\{([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\}/g;

function valueAt(args: Record<string, unknown>, path: string): unknown {
  let value: unknown = args;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, part)) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function rendered(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

/**
 * `keyFrom: "args"` (the default): the canonical arguments, within the run, so the same arguments in another run are
 * another call, and in the same run a retry until the call's answer was delivered. A template such as
 * "refund:{order_id}" names the effect itself, across runs. A key the client sends in `_meta` wins over both.
 */
export function callKey(
  keyFrom: string,
  args: Record<string, unknown>,
  /** Whose run: the key id and the run, so one agent's calls never collide with another's. */
  scope: string,
  clientKey: unknown,
): CallKey {
  if (clientKey !== undefined) {
    if (typeof clientKey !== "string" || clientKey.length === 0 || clientKey.length > MAX_TEMPLATE_KEY) {
      return { problem: `_meta["opledger/idempotencyKey"] must be a string of 1 to ${MAX_TEMPLATE_KEY} characters.` };
    }
    return { key: clientKey, byDefault: false };
  }
  if (keyFrom === "args") return { key: `mcp:${sha256(`${scope}\n${canonicalJson(args)}`)}`, byDefault: true };
  const missing: string[] = [];
  const key = keyFrom.replace(PLACEHOLDER, (_whole, path: string) => {
    const text = rendered(valueAt(args, path));
    if (text === null) missing.push(path);
    return text ?? "";
  });
  if (missing.length > 0) {
    return {
      problem:
        `The contract makes this call's idempotency key from ${keyFrom}, ` +
        `so the arguments need ${missing.map((m) => `"${m}"`).join(", ")} as a string or a number.`,
    };
  }
  return { key: key.length <= MAX_TEMPLATE_KEY ? key : `mcp:${sha256(key)}`, byDefault: false };
}
