// The root span of opledger's background work (a sweep pass, an auto-reconcile run, a bulk job's batch, a webhook
// delivery): a trace of its own, never a child of whatever span is active, and the operations it touched as
// attributes. An operation records only its trace id, no span id, and a span link needs a whole span context, so the
// operations are named, not linked; a link is added only for a span context that really exists (the request that
// started a bulk job). docs/observability.md, "Background work: root spans".
import { context, createContextKey, trace, type Attributes, type Link, type Span } from "@opentelemetry/api";
import { LEDGER } from "./attributes";
import type { CallerTrace } from "./caller-trace";
import { inSpan } from "./spans";

/** How many operation ids a root span names; the count is always whole. */
export const OPERATION_IDS_CAP = 100;

const TOUCHED = createContextKey("opledger.touched_operations");

class Touched {
  readonly ids: string[] = [];
  count = 0;

  add(id: string): void {
    this.count++;
    if (this.ids.length < OPERATION_IDS_CAP) this.ids.push(id);
  }
}

/**
 * Runs background work inside a root span named `name`. The work (and every command span opened inside it, which
 * becomes its child) says which operations it moved with touchedOperation; when it settles, the span gets
 * `opledger.operations` (how many) and `opledger.operation.ids` (the first 100).
 */
export function rootSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  links: Link[] = [],
): Promise<T> {
  return inSpan(name, { root: true, attributes, links }, (span) => {
    if (!span.isRecording()) return work(span);
    const touched = new Touched();
    return context.with(context.active().setValue(TOUCHED, touched), async () => {
      try {
        return await work(span);
      } finally {
        span.setAttribute(LEDGER.operations, touched.count);
        if (touched.count > 0) span.setAttribute(LEDGER.operationIds, touched.ids);
      }
    });
  });
}

/** The root span around this work moved that operation (nothing when there is none or tracing is off). */
export function touchedOperation(id: string): void {
  const touched = context.active().getValue(TOUCHED);
  if (touched instanceof Touched) touched.add(id);
}

/** A link to the caller's span: its traceparent names a span that exists, in the caller's trace. */
export function linkToCaller(caller: CallerTrace | undefined): Link[] {
  if (!caller) return [];
  const [, traceId, spanId, flags] = caller.traceparent.split("-");
  const spanContext = { traceId: traceId!, spanId: spanId!, traceFlags: parseInt(flags!, 16), isRemote: true };
  return trace.isSpanContextValid(spanContext) ? [{ context: spanContext }] : [];
}
