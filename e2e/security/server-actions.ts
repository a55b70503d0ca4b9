// Calls console server actions over plain HTTP, as a browser's fetch would: ids from the build's server-reference
// manifest, arguments as a JSON array.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext, APIResponse } from "@playwright/test";
import { REPO_ROOT } from "../fixtures/test-env";

interface ManifestEntry {
  workers: Record<string, unknown>;
  filename?: string;
  exportedName?: string;
}

export interface ExposedAction {
  id: string;
  /** A console page that hosts the action (the request goes there, as the page's own form would send it). */
  page: string;
}

/** The e2e server's build: NEXT_DIST_DIR as next.config.js reads it. */
export function manifestPath(): string {
  return path.join(REPO_ROOT, process.env.NEXT_DIST_DIR || ".next", "server", "server-reference-manifest.json");
}

/** "lib/console/actions/x.ts#name" -> its id and a page, for every action the build exposes. */
export function exposedActions(): Map<string, ExposedAction> {
  const manifest = JSON.parse(readFileSync(manifestPath(), "utf8")) as { node: Record<string, ManifestEntry> };
  const out = new Map<string, ExposedAction>();
  for (const [id, entry] of Object.entries(manifest.node)) {
    if (!entry.filename || !entry.exportedName)
      throw new Error(`server-reference manifest entry ${id} names no file or export`);
    const worker = Object.keys(entry.workers)[0] ?? "";
    out.set(`${entry.filename}#${entry.exportedName}`, { id, page: pageUrl(worker) });
  }
  return out;
}

/** The one exposed action exported under `name`, whichever file it lives in. */
export function exposedAction(name: string): ExposedAction {
  const found = [...exposedActions()].filter(([id]) => id.endsWith(`#${name}`));
  if (found.length !== 1)
    throw new Error(`expected one exposed server action named ${name}, found ${found.length} in ${manifestPath()}`);
  return found[0]![1];
}

/**
 * "app/(console)/operations/[id]/page" -> "/operations/x": route groups dropped, dynamic segments filled with a
 * placeholder.
 */
function pageUrl(worker: string): string {
  const segments = worker
    .replace(/^app\//, "")
    .replace(/\/?page$/, "")
    .split("/")
    .filter((s) => s && !/^\(.*\)$/.test(s))
    .map((s) => (/^\[.*\]$/.test(s) ? "matrix-placeholder" : s));
  return `/${segments.join("/")}`;
}

export interface ActionAnswer {
  status: number;
  /** The action's return value, decoded from the RSC payload; undefined when the payload carries none. */
  result: unknown;
  text: string;
  response: APIResponse;
}

/**
 * The RSC payload of a fetch action is lines `<hex id>:<json>`; row 0 is `{ "a": "$@<id>", ... }` pointing at the row
 * that holds the action's return value.
 */
export function actionResult(payload: string): unknown {
  const rows = new Map<string, string>();
  for (const line of payload.split("\n")) {
    // [\s\S], not ".": a row's JSON may hold U+2028 or U+2029 unescaped (a fuzzed key), which "." does not match.
    const match = /^([0-9a-f]+):([\s\S]*)$/.exec(line);
    if (match) rows.set(match[1]!, match[2]!);
  }
  const head = rows.get("0");
  if (head === undefined) return undefined;
  const ref = (JSON.parse(head) as { a?: unknown }).a;
  if (typeof ref !== "string" || !ref.startsWith("$@")) return undefined;
  const row = rows.get(ref.slice(2));
  return row === undefined ? undefined : JSON.parse(row);
}

/**
 * How the server refused an action call from another site before the action ran, or null when it did not: proxy.ts's
 * 403 `cross_site_request` problem (lib/platform/auth/same-site.ts), with no action result in the answer. Next.js's own abort
 * (HTTP 500 with an error digest) no longer counts: a refusal must say what it is.
 */
export function refusedBeforeRunning(answer: ActionAnswer): string | null {
  if (answer.result !== undefined || answer.status !== 403) return null;
  if (!(answer.response.headers()["content-type"] ?? "").startsWith("application/problem+json")) return null;
  try {
    return (JSON.parse(answer.text) as { code?: string }).code === "cross_site_request"
      ? "403 cross_site_request"
      : null;
  } catch {
    return null;
  }
}

/**
 * The arguments as React's encodeReply writes plain JSON: a string that starts with "$" would read as a reference in
 * the reply protocol, so it goes out as "$$...".
 */
function encodeReply(args: unknown[]): string {
  return JSON.stringify(args, (_key, value: unknown) =>
    typeof value === "string" && value.startsWith("$") ? `$${value}` : value,
  );
}

/** POSTs one action call; `headers` adds whatever the principal presents (a cookie rides on the context). */
export async function callAction(
  request: APIRequestContext,
  action: ExposedAction,
  args: unknown[],
  headers: Record<string, string> = {},
): Promise<ActionAnswer> {
  const response = await request.post(action.page, {
    headers: {
      "next-action": action.id,
      "content-type": "text/plain;charset=UTF-8",
      accept: "text/x-component",
      ...headers,
    },
    data: Buffer.from(encodeReply(args)),
    failOnStatusCode: false,
    maxRedirects: 0,
  });
  const text = await response.text();
  let result: unknown;
  try {
    result = actionResult(text);
  } catch {
    result = undefined;
  }
  return { status: response.status(), result, text, response };
}
