"use client";
// One run on a time axis: a row per operation, each attempt a bar from dispatch to outcome coloured by its result, and
// the backoff it waited drawn as a hatched gap before it; a table under it says the same in words.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { consoleGet, ConsoleApiError, keepPolling, LIVE_INTERVAL_MS } from "@/components/console-api";
import { PhaseBadge } from "@/components/operations/phase-badge";
import { TraceLink } from "@/components/operations/trace-link";
import { spentTime } from "@/components/metrics/durations";
import { Notice } from "@/components/ui/form-controls";
import { RelativeTime } from "@/components/ui/relative-time";
import { runTraces } from "@/lib/console/trace-link";
import type { RunTimeline, TimelineAttempt } from "@/lib/ledger/reads/run-timeline";
import type { Phase } from "@/lib/retry-gate/types";
import { RunTraces } from "./run-traces";
import { offsetLabel, position, ticks, type TimeScale } from "./timeline-scale";

const RESULT_COLOUR: Record<string, string> = {
  confirmed: "var(--tone-green-solid)",
  failed: "var(--tone-red-solid)",
  unknown: "var(--tone-amber-solid)",
  in_flight: "var(--tone-blue-solid)",
};

export function runKey(runId: string) {
  return ["console", "runs", runId] as const;
}

function attemptEnd(a: TimelineAttempt, scale: TimeScale): number {
  return a.finishedAt ? Date.parse(a.finishedAt) : scale.to;
}

function AttemptMarks({ attempt, scale }: { attempt: TimelineAttempt; scale: TimeScale }) {
  const start = Date.parse(attempt.dispatchedAt);
  const left = position(scale, start);
  const width = Math.max(0.4, position(scale, attemptEnd(attempt, scale)) - left);
  const gapLeft = position(scale, start - attempt.backoffMs);
  const took = attempt.finishedAt ? `, ${spentTime(Date.parse(attempt.finishedAt) - start)}` : ", still out";
  return (
    <>
      {attempt.backoffMs > 0 ? (
        <div
          className="absolute top-1/2 h-1.5 -translate-y-1/2 rounded-sm"
          style={{
            left: `${gapLeft}%`,
            width: `${left - gapLeft}%`,
            backgroundImage: "repeating-linear-gradient(135deg, var(--tone-amber-solid) 0 2px, transparent 2px 5px)",
          }}
          data-backoff-gap={attempt.number}
          title={`waited ${spentTime(attempt.backoffMs)} in backoff before attempt ${attempt.number}`}
        />
      ) : null}
      <div
        className="absolute top-1/2 h-3.5 -translate-y-1/2 rounded-sm"
        style={{
          left: `${left}%`,
          width: `${width}%`,
          background: RESULT_COLOUR[attempt.result] ?? "var(--ink-subtle)",
        }}
        data-attempt-bar={attempt.number}
        title={`attempt ${attempt.number}: ${attempt.result}${took}`}
      />
    </>
  );
}

/** `traceUrl` is OPLEDGER_TRACE_URL, the template of the Trace links (null: the trace ids are shown to copy). */
export function RunTimelineView({ initial, traceUrl }: { initial: RunTimeline; traceUrl: string | null }) {
  const query = useQuery({
    queryKey: runKey(initial.runId),
    queryFn: ({ signal }) => consoleGet<RunTimeline>(`/api/console/runs/${encodeURIComponent(initial.runId)}`, signal),
    initialData: initial,
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
  });
  const run = query.data;
  const scale: TimeScale = { from: Date.parse(run.from), to: Date.parse(run.to) };
  const marks = ticks(scale);
  const traces = runTraces(run.operations);
  return (
    <div className="flex flex-col gap-4">
      {query.isError ? (
        <Notice tone="error" title="Could not refresh the run" alert>
          {query.error instanceof ConsoleApiError ? query.error.message : "The console server did not answer."}
        </Notice>
      ) : null}
      <p className="text-[13px] text-ink" data-testid="run-totals">
        {run.operations.length} {run.operations.length === 1 ? "operation" : "operations"}, {run.totals.attempts}{" "}
        {run.totals.attempts === 1 ? "attempt" : "attempts"}:{" "}
        <span className="font-semibold tabular-nums">{spentTime(run.totals.backoffMs)}</span> waiting in backoff,{" "}
        <span className="font-semibold tabular-nums">{spentTime(run.totals.callMs)}</span> in calls, over{" "}
        {spentTime(scale.to - scale.from)} from the first plan (<RelativeTime value={run.from} />
        ).
      </p>
      <RunTraces traces={traces} template={traceUrl} />
      {run.truncated ? (
        <Notice tone="info">Only the first {run.operations.length} operations of this run are drawn.</Notice>
      ) : null}
      <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-ink-muted" aria-label="Legend">
        {Object.entries(RESULT_COLOUR).map(([result, colour]) => (
          <li key={result} className="flex items-center gap-1.5">
            <span aria-hidden="true" className="size-2.5 rounded-sm" style={{ background: colour }} />
            {result === "in_flight" ? "still out" : result}
          </li>
        ))}
        <li className="flex items-center gap-1.5">
          <span
            aria-hidden="true"
            className="h-1.5 w-4 rounded-sm"
            style={{
              backgroundImage: "repeating-linear-gradient(135deg, var(--tone-amber-solid) 0 2px, transparent 2px 5px)",
            }}
          />
          backoff before an attempt
        </li>
      </ul>
      <div className="rounded-lg border border-line p-3" data-testid="run-timeline">
        {/* The drawing repeats the table below; assistive technology reads the table. */}
        <div aria-hidden="true" className="flex flex-col">
          <div className="ml-[32%] flex h-5 border-b border-line text-[11px] text-ink-subtle">
            <div className="relative w-full">
              {marks.map((offset) => (
                <span
                  key={offset}
                  className="absolute -translate-x-1/2 tabular-nums first:translate-x-0"
                  style={{ left: `${position(scale, scale.from + offset)}%` }}
                >
                  {offsetLabel(offset)}
                </span>
              ))}
            </div>
          </div>
          {run.operations.map((op) => (
            <div
              key={op.id}
              className="flex h-7 items-center border-b border-line last:border-b-0"
              data-run-row={op.id}
            >
              <div className="w-[32%] truncate pr-2 font-mono text-[12px] text-ink-muted">{op.tool}</div>
              <div className="relative h-full w-[68%]">
                <div className="absolute top-1/2 h-px w-full -translate-y-1/2" style={{ background: "var(--line)" }} />
                <div
                  className="absolute top-1/2 size-1.5 -translate-x-1/2 -translate-y-1/2 rounded-full bg-ink-subtle"
                  style={{ left: `${position(scale, Date.parse(op.createdAt))}%` }}
                  title="planned"
                />
                {op.attempts.map((a) => (
                  <AttemptMarks key={a.number} attempt={a} scale={scale} />
                ))}
              </div>
            </div>
          ))}
        </div>
      </div>
      <details className="text-[13px]">
        <summary className="cursor-pointer text-ink-muted hover:text-ink">Show the run as a table</summary>
        <table className="mt-2 w-full border-collapse">
          <caption className="sr-only">The run&apos;s operations and attempts, in plan order</caption>
          <thead>
            <tr className="border-b border-line text-left text-xs text-ink-muted">
              <th scope="col" className="py-1 pr-3 font-medium">
                Operation
              </th>
              <th scope="col" className="py-1 pr-3 font-medium">
                Phase
              </th>
              <th scope="col" className="py-1 pr-3 font-medium">
                Attempts (backoff before → call)
              </th>
              {traces.kind === "per-operation" ? (
                <th scope="col" className="py-1 pr-3 font-medium">
                  Trace
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {run.operations.map((op) => (
              <tr key={op.id} className="border-b border-line align-top last:border-b-0">
                <th scope="row" className="py-1.5 pr-3 text-left font-normal">
                  <Link
                    href={`/operations/${encodeURIComponent(op.id)}`}
                    className="font-mono text-[12px] break-all text-ink underline-offset-4 hover:underline"
                  >
                    {op.tool}
                  </Link>
                  <span className="block font-mono text-[11px] text-ink-subtle">{op.id}</span>
                </th>
                <td className="py-1.5 pr-3">
                  <PhaseBadge phase={op.phase as Phase} />
                </td>
                <td className="py-1.5 pr-3 text-xs">
                  {op.attempts.length === 0 ? (
                    <span className="text-ink-subtle">not dispatched</span>
                  ) : (
                    <ol className="flex flex-col gap-0.5">
                      {op.attempts.map((a) => (
                        <li key={a.number} className="tabular-nums">
                          #{a.number}: {a.backoffMs > 0 ? `waited ${spentTime(a.backoffMs)} → ` : ""}
                          {a.result === "in_flight"
                            ? "still out"
                            : `${a.result} after ${spentTime(Date.parse(a.finishedAt ?? a.dispatchedAt) - Date.parse(a.dispatchedAt))}`}
                          {a.errorKind ? ` (${a.errorKind})` : ""}
                        </li>
                      ))}
                    </ol>
                  )}
                </td>
                {traces.kind === "per-operation" ? (
                  <td className="py-1.5 pr-3 text-xs">
                    <TraceLink template={traceUrl} traceId={op.traceId} of={`operation ${op.id}`} />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
