"use client";
// The way from the console to a recorded trace: a "Trace" link built from OPLEDGER_TRACE_URL, or without it the trace
// id in monospace with a button to copy it; nothing when the call carried no trace (lib/console/trace-link.ts).
import { useRef } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { traceReference } from "@/lib/console/trace-link";

export function TraceLink({
  template,
  traceId,
  of,
}: {
  /** OPLEDGER_TRACE_URL, read on the server and handed down; null when it is not set. */
  template: string | null;
  traceId: string | null;
  /** Whose trace, for assistive technology and the hover title: "the planning call", "attempt 2". */
  of: string;
}) {
  const idRef = useRef<HTMLSpanElement>(null);
  const trace = traceReference(template, traceId);
  if (trace === null) return null;
  if (trace.kind === "link") {
    return (
      <a
        href={trace.href}
        target="_blank"
        rel="noopener noreferrer"
        title={`The trace of ${of} (${trace.traceId}), in a new tab`}
        className="font-medium whitespace-nowrap text-ink underline underline-offset-4 hover:text-ink-muted"
        data-trace-link={trace.traceId}
      >
        Trace<span className="sr-only"> of {of}, opens in a new tab</span>
        <span aria-hidden="true"> ↗</span>
      </a>
    );
  }
  return (
    <span className="inline-flex flex-wrap items-center gap-2" data-trace-id={trace.traceId}>
      <span className="text-ink-subtle">
        Trace<span className="sr-only"> id of {of}:</span>
      </span>
      <span ref={idRef} translate="no" className="font-mono text-[12.5px] break-all text-ink">
        {trace.traceId}
      </span>
      <CopyButton value={trace.traceId} label={`Copy the trace id of ${of}`} selectOnFailure={idRef} />
    </span>
  );
}
