// The run's allowance as its agent declared it, and how much of it the run's operations used (docs/run-allowance.md).
import { spentTime } from "@/components/metrics/durations";
import { Notice } from "@/components/ui/form-controls";
import { RelativeTime } from "@/components/ui/relative-time";
import type { RunAllowanceView } from "@/lib/ledger/runs/run-allowances";

function Used({
  label,
  used,
  max,
  format,
}: {
  label: string;
  used: number;
  max: number | null;
  format: (n: number) => string;
}) {
  const share = max === null || max === 0 ? null : Math.min(1, used / max);
  return (
    <div className="min-w-0">
      <dt className="text-xs text-ink-muted">{label}</dt>
      <dd className="mt-0.5 text-ink tabular-nums">
        {format(used)}{" "}
        {max === null ? <span className="text-ink-subtle">used (no bound)</span> : `of ${format(max)} used`}
        {share !== null ? (
          <span aria-hidden="true" className="mt-1 block h-1.5 w-40 overflow-hidden rounded bg-surface-sunken">
            <span
              className={`block h-full ${share >= 1 ? "bg-phase-failed" : "bg-ink/60"}`}
              style={{ width: `${share * 100}%` }}
            />
          </span>
        ) : null}
      </dd>
    </div>
  );
}

export function RunAllowancePanel({ allowance }: { allowance: RunAllowanceView }) {
  return (
    <section aria-label="Allowance" className="flex flex-col gap-3 rounded-md border border-line p-3">
      <h2 className="font-semibold text-ink">Allowance</h2>
      <dl className="grid gap-3 sm:grid-cols-3">
        <Used label="Retries" used={allowance.used.retries} max={allowance.maxRetries} format={String} />
        <Used label="Backoff" used={allowance.used.backoffMs} max={allowance.maxBackoffMs} format={spentTime} />
        <div className="min-w-0">
          <dt className="text-xs text-ink-muted">Deadline</dt>
          <dd className="mt-0.5 text-ink">
            {allowance.deadlineAt ? (
              <RelativeTime value={allowance.deadlineAt} />
            ) : (
              <span className="text-ink-subtle">none</span>
            )}
          </dd>
        </div>
      </dl>
      {allowance.exhaustedAt ? (
        <Notice tone="warning" title="Allowance spent">
          Since <RelativeTime value={allowance.exhaustedAt} /> the gate stops this run&apos;s retries that would pass
          it; their operations fail with the reason on their page.
        </Notice>
      ) : null}
    </section>
  );
}
