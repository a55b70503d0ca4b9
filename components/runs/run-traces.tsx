// The run page's way into the agent's traces: one Trace link when the run's operations were planned in one trace, or a
// line saying the table links each operation's when they were planned in several (lib/console/trace-link.ts, runTraces).
import { TraceLink } from "@/components/operations/trace-link";
import type { RunTraces as Traces } from "@/lib/console/trace-link";
import { assertNever } from "@/lib/retry-gate/exhaustive";

export function RunTraces({ traces, template }: { traces: Traces; template: string | null }) {
  switch (traces.kind) {
    case "none":
      return null;
    case "run":
      return (
        <p className="flex flex-wrap items-center gap-x-2 text-[13px] text-ink" data-run-traces="1">
          Its operations were planned in one trace:
          <TraceLink template={template} traceId={traces.traceId} of="the run" />
        </p>
      );
    case "per-operation":
      return (
        <p className="text-[13px] text-ink" data-run-traces={traces.traces}>
          Its operations were planned in {traces.traces} traces: the table below links each operation&apos;s.
        </p>
      );
    default:
      return assertNever(traces, "run traces");
  }
}
