// The console's way into an operation's trace: a link built from OPLEDGER_TRACE_URL's template, or the trace id to copy
// when there is no template (docs/observability.md#the-consoles-trace-link).

/** Where the trace id goes in OPLEDGER_TRACE_URL (lib/platform/config/env.ts refuses a template without it). */
export const TRACE_ID_PLACEHOLDER = "{traceId}";

/** A W3C trace id: 32 lowercase hex digits, not all zeros (the W3C's "no trace"). */
const TRACE_ID = /^(?!0{32}$)[0-9a-f]{32}$/;

/** What the console shows for a recorded trace id: a link when a template is set, else the id to copy. */
export type TraceReference = { kind: "link"; traceId: string; href: string } | { kind: "id"; traceId: string };

/** The trace id, or null for none or anything that is not a W3C trace id (nothing is shown for it). */
export function validTraceId(value: string | null | undefined): string | null {
  return typeof value === "string" && TRACE_ID.test(value) ? value : null;
}

/** The link to a trace: the template with every `{traceId}` replaced; null without a template or a trace id. */
export function traceLink(template: string | null | undefined, traceId: string | null | undefined): string | null {
  const id = validTraceId(traceId);
  if (!template || id === null) return null;
  return template.replaceAll(TRACE_ID_PLACEHOLDER, id);
}

/** The link, or the id alone without a template; null when there is no trace id. */
export function traceReference(
  template: string | null | undefined,
  traceId: string | null | undefined,
): TraceReference | null {
  const id = validTraceId(traceId);
  if (id === null) return null;
  const href = traceLink(template, id);
  return href === null ? { kind: "id", traceId: id } : { kind: "link", traceId: id, href };
}

/**
 * How the run page links its traces. An agent framework usually opens one trace for a whole run: then the run has one
 * link. When its operations were planned in several traces (a trace per step), one link would send the on-call person
 * to the wrong trace for the slow step, so each operation's trace is linked beside it instead.
 */
export type RunTraces = { kind: "none" } | { kind: "run"; traceId: string } | { kind: "per-operation"; traces: number };

export function runTraces(operations: readonly { traceId: string | null }[]): RunTraces {
  const ids = new Set<string>();
  for (const op of operations) {
    const id = validTraceId(op.traceId);
    if (id !== null) ids.add(id);
  }
  const [first] = ids;
  if (first === undefined) return { kind: "none" };
  return ids.size === 1 ? { kind: "run", traceId: first } : { kind: "per-operation", traces: ids.size };
}
