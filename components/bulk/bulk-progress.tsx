"use client";
// A running bulk job: a progress bar and counts while it runs, Cancel (with a reason), and the per-operation report
// at the end.
import { useQuery } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { buttonClass } from "@/components/ui/button-styles";
import { inputClass, Notice } from "@/components/ui/form-controls";
import { consoleGet, keepPolling } from "@/components/console-api";
import { cancelBulkAction } from "@/lib/console/actions/bulk-actions";
import type { BulkJobView } from "@/lib/ledger/bulk/job";
import { formText } from "@/components/ui/form-text";

const POLL_MS = 1_000;
const SHOWN_ITEMS = 200;

function fetchJob(jobId: string, signal: AbortSignal): Promise<BulkJobView> {
  return consoleGet<BulkJobView>(`/api/console/bulk/${encodeURIComponent(jobId)}`, signal);
}

export function BulkProgress({ jobId, onDone }: { jobId: string; onDone: () => void }) {
  const job = useQuery({
    queryKey: ["bulk-job", jobId],
    queryFn: ({ signal }) => fetchJob(jobId, signal),
    refetchInterval: (q) =>
      q.state.data && q.state.data.status !== "running" ? false : keepPolling(q.state.error) ? POLL_MS : false,
  });
  const data = job.data;
  if (!data) {
    return job.isError ? (
      <Notice tone="error" alert title="The job's progress cannot be read">
        {job.error.message}
      </Notice>
    ) : (
      <p className="text-ink-muted">Starting the job…</p>
    );
  }
  const settled = data.total - data.pending;
  const running = data.status === "running";
  const percent = data.total === 0 ? 100 : Math.round((settled / data.total) * 100);
  return (
    <div className="flex flex-col gap-3" data-bulk-job={jobId} data-bulk-status={data.status}>
      <div>
        <div className="mb-1 flex justify-between text-xs text-ink-muted tabular-nums">
          <span>
            {settled.toLocaleString("en")} of {data.total.toLocaleString("en")} settled
          </span>
          <span>{percent}%</span>
        </div>
        <div
          role="progressbar"
          aria-label="Bulk job progress"
          aria-valuemin={0}
          aria-valuemax={data.total}
          aria-valuenow={settled}
          className="h-2 overflow-hidden rounded-full bg-surface-sunken"
        >
          <div className="h-full bg-ink transition-[width]" style={{ width: `${percent}%` }} />
        </div>
      </div>
      <dl className="grid grid-cols-4 gap-2 text-center tabular-nums" aria-live="polite">
        {(
          [
            ["Acted", data.acted],
            ["Skipped", data.skipped],
            ["Stale", data.stale],
            ["Failed", data.failed],
          ] as const
        ).map(([label, n]) => (
          <div key={label} className="rounded-md bg-surface-muted px-2 py-1.5">
            <dt className="text-[11px] font-semibold tracking-wide text-ink-subtle uppercase">{label}</dt>
            <dd className="text-base font-semibold text-ink" data-bulk-count={label.toLowerCase()}>
              {n.toLocaleString("en")}
            </dd>
          </div>
        ))}
      </dl>
      {running ? (
        <CancelJob jobId={jobId} requested={data.cancelRequested} onCancelled={() => void job.refetch()} />
      ) : (
        <JobReport job={data} />
      )}
      <div className="flex justify-end">
        <button type="button" className={buttonClass(running ? "secondary" : "primary")} onClick={onDone}>
          {running ? "Close (the job keeps running)" : "Close"}
        </button>
      </div>
    </div>
  );
}

function CancelJob({ jobId, requested, onCancelled }: { jobId: string; requested: boolean; onCancelled: () => void }) {
  const [asking, setAsking] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const reasonId = useId();
  if (requested) return <p className="text-ink-muted">Stopping after the batch in hand…</p>;
  if (!asking) {
    return (
      <div>
        <button type="button" className={buttonClass("danger", "sm")} onClick={() => setAsking(true)}>
          Cancel the job…
        </button>
      </div>
    );
  }
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = formText(new FormData(event.currentTarget), "reason");
    setPending(true);
    const result = await cancelBulkAction({ jobId, reason });
    setPending(false);
    if (result.ok) onCancelled();
    else setError(result.message);
  }
  return (
    <form onSubmit={(e) => void submit(e)} className="flex flex-col gap-2">
      <label htmlFor={reasonId} className="font-medium text-ink">
        Why stop it? What was done stays done; the rest is left as it is.
      </label>
      <input id={reasonId} name="reason" required data-autofocus className={inputClass(Boolean(error))} />
      {error ? (
        <Notice tone="error" alert>
          {error}
        </Notice>
      ) : null}
      <div className="flex gap-2">
        <button type="submit" className={buttonClass("danger", "sm")} disabled={pending}>
          {pending ? "Stopping…" : "Stop the job"}
        </button>
        <button type="button" className={buttonClass("quiet", "sm")} onClick={() => setAsking(false)}>
          Keep it running
        </button>
      </div>
    </form>
  );
}

function JobReport({ job }: { job: BulkJobView }) {
  const notActed = job.items.filter((i) => i.result !== "acted");
  return (
    <div className="flex flex-col gap-2">
      <Notice
        tone={job.status === "done" ? "success" : "info"}
        title={job.status === "done" ? "Finished" : "Cancelled"}
      >
        {job.acted.toLocaleString("en")} acted on, {job.skipped.toLocaleString("en")} skipped,{" "}
        {job.stale.toLocaleString("en")} stale (changed since the preview, left untouched),{" "}
        {job.failed.toLocaleString("en")} failed
        {job.pending > 0 ? `, ${job.pending.toLocaleString("en")} not run` : ""}.
      </Notice>
      {notActed.length > 0 ? (
        <details open={notActed.length <= 20}>
          <summary className="cursor-pointer text-xs font-semibold tracking-wide text-ink-subtle uppercase">
            Not acted on ({notActed.length.toLocaleString("en")})
          </summary>
          <ul className="mt-1 max-h-48 overflow-y-auto font-mono text-xs text-ink-muted">
            {notActed.slice(0, SHOWN_ITEMS).map((i) => (
              <li key={i.id} data-bulk-item={i.id} data-bulk-result={i.result ?? "not_run"}>
                {i.id}: {i.result ?? "not run"}
                {i.detail ? ` — ${i.detail}` : ""}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
