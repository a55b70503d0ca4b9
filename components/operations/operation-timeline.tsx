// The operation's history as one vertical timeline: attempts and audit events merged in time order, oldest at the top.
import type { AttemptView, AuditView } from "@/lib/ledger/reads/operation-view";
import { PHASES, type Phase } from "@/lib/retry-gate/types";
import { formatExactUtc, toEpochMs } from "@/components/ui/format-time";
import { RelativeTime } from "@/components/ui/relative-time";
import { ActorName } from "@/components/audit/actor-name";
import { QuorumCount } from "./approval-deadline";
import { PhaseBadge } from "./phase-badge";
import { TraceLink } from "./trace-link";

type Entry =
  | { at: number; order: number; kind: "audit"; event: AuditView }
  | { at: number; order: number; kind: "attempt"; attempt: AttemptView };

/** At equal times an attempt follows the audit events that let it leave (authorized, dispatched). */
export function timelineEntries(attempts: AttemptView[], audit: AuditView[]): Entry[] {
  const entries: Entry[] = [
    ...audit.map((event, i): Entry => ({ at: toEpochMs(event.createdAt) ?? 0, order: i, kind: "audit", event })),
    ...attempts.map((attempt, i): Entry => ({
      at: toEpochMs(attempt.dispatchedAt) ?? 0,
      order: audit.length + i,
      kind: "attempt",
      attempt,
    })),
  ];
  return entries.sort((a, b) => a.at - b.at || a.order - b.order);
}

const ACTION_LABELS: Record<string, string> = {
  "operation.planned": "Planned",
  "operation.authorized": "Authorized by the gate",
  "operation.dispatched": "Dispatched",
  "operation.confirmed": "Confirmed by the provider",
  "operation.outcome_unknown": "Outcome unknown",
  "operation.reconciled": "Reconciled",
  "operation.retry_scheduled": "Retry scheduled",
  "operation.approval_requested": "Approval requested",
  "operation.approved": "Retry approved",
  "operation.approval_given": "Approval given",
  "operation.approval_expired": "Approval request expired",
  "operation.rejected": "Rejected",
  "operation.failed": "Failed",
  "operation.lease_claimed": "Lease claimed",
  "operation.lease_taken_over": "Lease taken over",
  "operation.lease_released": "Lease released",
  "operation.stale_fence_rejected": "Stale worker refused",
};

function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

function asPhase(value: string | null): Phase | null {
  return value !== null && (PHASES as readonly string[]).includes(value) ? (value as Phase) : null;
}

/** The quorum an approval record counted ("1 of 2 approvals"), from its data; null for a single approval. */
function quorumOf(event: AuditView): { given: number; needed: number } | null {
  if (event.action !== "operation.approval_given" && event.action !== "operation.approved") return null;
  const data = event.data as { approvals?: unknown; quorum?: unknown } | null;
  if (typeof data?.approvals !== "number" || typeof data.quorum !== "number" || data.quorum <= 1) return null;
  return { given: data.approvals, needed: data.quorum };
}

/** Lease bookkeeping is shown quieter than the decisions and outcomes around it. */
const QUIET = new Set(["operation.lease_claimed", "operation.lease_released", "operation.authorized"]);

function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

function resultStyle(result: string): { label: string; className: string } {
  switch (result) {
    case "in_flight":
      return {
        label: "in flight",
        className: "bg-phase-dispatched-soft text-phase-dispatched-ink ring-phase-dispatched/30",
      };
    case "confirmed":
      return {
        label: "confirmed",
        className: "bg-phase-confirmed-soft text-phase-confirmed-ink ring-phase-confirmed/30",
      };
    case "failed":
      return { label: "failed", className: "bg-phase-failed-soft text-phase-failed-ink ring-phase-failed/30" };
    case "unknown":
      return {
        label: "outcome unknown",
        className: "bg-phase-unknown-soft text-phase-unknown-ink ring-phase-unknown/40",
      };
    default:
      return { label: result, className: "bg-surface-sunken text-ink-muted ring-line-strong" };
  }
}

function When({ at }: { at: string }) {
  const ms = toEpochMs(at);
  return (
    <span className="text-xs whitespace-nowrap text-ink-subtle">
      <RelativeTime live value={at} />
      {ms === null ? null : <span className="ml-1.5 font-mono text-[11px]">{formatExactUtc(ms).slice(11, 23)}</span>}
    </span>
  );
}

export function OperationTimeline({
  attempts,
  audit,
  traceUrl,
}: {
  attempts: AttemptView[];
  audit: AuditView[];
  /** OPLEDGER_TRACE_URL, for each attempt's Trace link. */
  traceUrl: string | null;
}) {
  const entries = timelineEntries(attempts, audit);
  if (entries.length === 0) {
    return <p className="text-ink-muted">Nothing has happened to this operation yet.</p>;
  }
  return (
    <ol aria-label="Timeline" className="relative ml-2 border-l border-line-strong">
      {entries.map((entry) =>
        entry.kind === "attempt" ? (
          <AttemptEntry key={`attempt-${entry.attempt.number}`} attempt={entry.attempt} traceUrl={traceUrl} />
        ) : (
          <AuditEntry key={entry.event.id} event={entry.event} />
        ),
      )}
    </ol>
  );
}

function AuditEntry({ event }: { event: AuditView }) {
  const from = asPhase(event.fromPhase);
  const to = asPhase(event.toPhase);
  const quiet = QUIET.has(event.action);
  const quorum = quorumOf(event);
  return (
    <li className="relative pb-4 pl-5" data-timeline="audit" data-action={event.action}>
      <span
        aria-hidden="true"
        className={`absolute top-1.5 -left-[5px] size-2.5 rounded-full ring-2 ring-surface ${quiet ? "bg-line-strong" : "bg-ink-muted"}`}
      />
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <span className={quiet ? "text-ink-muted" : "font-semibold text-ink"}>{actionLabel(event.action)}</span>
        {from || to ? (
          <span className="flex items-center gap-1.5">
            {from ? <PhaseBadge phase={from} /> : null}
            {from && to && from !== to ? (
              <span aria-label="to" className="text-ink-subtle">
                →
              </span>
            ) : null}
            {to && to !== from ? <PhaseBadge phase={to} /> : null}
          </span>
        ) : null}
        <When at={event.createdAt} />
      </div>
      <p className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-ink-muted">
        <span>
          by <ActorName event={event} />
        </span>
        {quorum ? <QuorumCount approvals={quorum} /> : null}
      </p>
      {event.reason ? (
        <p className={`mt-1 max-w-prose leading-relaxed ${quiet ? "text-ink-muted" : "text-ink"}`}>{event.reason}</p>
      ) : null}
    </li>
  );
}

function AttemptEntry({ attempt, traceUrl }: { attempt: AttemptView; traceUrl: string | null }) {
  const style = resultStyle(attempt.result);
  const took =
    attempt.finishedAt === null
      ? null
      : Math.max(0, (toEpochMs(attempt.finishedAt) ?? 0) - (toEpochMs(attempt.dispatchedAt) ?? 0));
  return (
    <li className="relative pb-4 pl-5" data-timeline="attempt" data-attempt={attempt.number}>
      <span aria-hidden="true" className="absolute top-3 -left-[7px] size-3.5 rounded-sm bg-ink ring-2 ring-surface" />
      <div className="rounded-lg border border-line bg-surface-muted px-3 py-2.5">
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <span className="font-semibold text-ink">Attempt {attempt.number}</span>
          <span className={`rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${style.className}`}>
            {style.label}
          </span>
          <When at={attempt.dispatchedAt} />
          <span className="ml-auto text-xs empty:hidden">
            <TraceLink template={traceUrl} traceId={attempt.traceId} of={`attempt ${attempt.number}`} />
          </span>
        </div>
        <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-0.5 text-xs sm:grid-cols-[max-content_1fr_max-content_1fr]">
          <dt className="text-ink-subtle">Worker</dt>
          <dd className="font-mono text-[12px] break-all text-ink">{attempt.workerId}</dd>
          <dt className="text-ink-subtle">Fence</dt>
          <dd className="font-mono text-[12px] text-ink">{attempt.fence}</dd>
          <dt className="text-ink-subtle">Backoff waited</dt>
          <dd className="text-ink">{attempt.number === 1 ? "— (first attempt)" : formatMs(attempt.backoffMs)}</dd>
          <dt className="text-ink-subtle">Took</dt>
          <dd className="text-ink">{took === null ? "still in flight" : formatMs(took)}</dd>
          {attempt.errorKind || attempt.httpStatus !== null ? (
            <>
              <dt className="text-ink-subtle">Error</dt>
              <dd className="text-phase-failed-ink sm:col-span-3">
                <span className="font-mono text-[12px]">{attempt.errorKind ?? "error"}</span>
                {attempt.httpStatus !== null ? (
                  <span className="font-mono text-[12px]"> · HTTP {attempt.httpStatus}</span>
                ) : null}
                {attempt.errorMessage ? <span className="text-ink"> · {attempt.errorMessage}</span> : null}
              </dd>
            </>
          ) : null}
          {attempt.providerId ? (
            <>
              <dt className="text-ink-subtle">Provider id</dt>
              <dd className="font-mono text-[12px] break-all text-ink sm:col-span-3">{attempt.providerId}</dd>
            </>
          ) : null}
          <dt className="text-ink-subtle">Dispatched</dt>
          <dd className="font-mono text-[11.5px] text-ink-muted">
            {formatExactUtc(toEpochMs(attempt.dispatchedAt) ?? 0)}
          </dd>
          <dt className="text-ink-subtle">Finished</dt>
          <dd className="font-mono text-[11.5px] text-ink-muted">
            {attempt.finishedAt === null ? "—" : formatExactUtc(toEpochMs(attempt.finishedAt) ?? 0)}
          </dd>
        </dl>
      </div>
    </li>
  );
}
