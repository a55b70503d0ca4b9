"use client";
// The operation page: the gate's decision and the actions on top, then identity, the timeline, the arguments and the
// evidence.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import type { OperationDetail as Operation } from "@/lib/ledger/reads/operations";
import { formatExactUtc, toEpochMs } from "@/components/ui/format-time";
import { RelativeTime } from "@/components/ui/relative-time";
import { quorumText } from "@/lib/console/wait-time";
import { ApprovalDeadline, QuorumCount } from "./approval-deadline";
import { consoleKeys, fetchOperation, keepPolling, LIVE_INTERVAL_MS } from "./console-api";
import { DecisionBadge } from "./decision-badge";
import { ListError, LiveStatus } from "./list-states";
import { AttemptCount, EffectClassText, LastError, ViaMark } from "./operation-cells";
import { OperationActions } from "./operation-actions";
import { OperationTimeline } from "./operation-timeline";
import { PhaseBadge } from "./phase-badge";
import { ReconciliationEvidence } from "./reconciliation-evidence";
import { ReplayButton } from "./replay-dialog";
import { WouldHavePanel } from "./would-have-panel";

export function OperationDetail({
  initial,
  canAct,
  fourEyesTied,
}: {
  initial: Operation;
  canAct: boolean;
  /** Four-eyes keeps this person from approving (a key bound to them runs it, or they asked): no approval offered. */
  fourEyesTied: boolean;
}) {
  const query = useQuery({
    queryKey: consoleKeys.detail(initial.id),
    queryFn: ({ signal }) => fetchOperation(initial.id, signal),
    initialData: initial,
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
  });
  const op = query.data;

  return (
    <article aria-labelledby="operation-title">
      <nav aria-label="Breadcrumb" className="mb-2 text-xs text-ink-muted">
        <Link href="/" className="underline underline-offset-4 hover:text-ink">
          Ledger
        </Link>{" "}
        / operation
      </nav>
      <header className="mb-4 flex flex-wrap items-start justify-between gap-3 border-b border-line pb-4">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-3">
            <h1 id="operation-title" className="font-mono text-lg font-semibold tracking-tight text-ink">
              {op.tool}
            </h1>
            <PhaseBadge phase={op.phase} className="text-[13px]" />
            <EffectClassText effect={op.effect} />
            <ViaMark via={op.via} />
          </div>
          <p className="mt-1 font-mono text-[12.5px] break-all text-ink-muted" translate="no">
            <span className="sr-only">Operation id </span>
            {op.id}
          </p>
          <ReplayLinks op={op} />
          <RepeatLink op={op} />
        </div>
        <LiveStatus
          available
          paused={false}
          fetching={query.isFetching}
          stale={query.isRefetchError}
          updatedAt={query.dataUpdatedAt}
        />
      </header>

      {query.isRefetchError ? (
        <div className="mb-4">
          <ListError
            error={query.error}
            what="the latest state of this operation"
            onRetry={() => void query.refetch()}
          />
        </div>
      ) : null}

      <section
        aria-labelledby="decision-title"
        className="mb-6 rounded-xl border border-line-strong bg-surface-muted px-5 py-4 shadow-xs"
        data-decision-panel={op.decision.action}
      >
        <h2 id="decision-title" className="mb-2 text-[11px] font-semibold tracking-wide text-ink-subtle uppercase">
          What the retry gate says now
        </h2>
        <div className="flex flex-wrap items-start gap-3">
          <DecisionBadge action={op.decision.action} className="mt-0.5 text-[13px]" />
          <p className="max-w-3xl flex-1 text-[15px] leading-relaxed text-ink" data-decision-reason>
            {op.decision.reason}
          </p>
        </div>
        <Outcome op={op} />
        <div className="mt-4">
          <OperationActions operation={op} canAct={canAct} fourEyesTied={fourEyesTied} />
        </div>
        <div className="mt-3 empty:hidden">
          <ReplayButton op={op} canAct={canAct} />
        </div>
      </section>

      {op.wouldHave ? <WouldHavePanel tool={op.tool} wouldHave={op.wouldHave} /> : null}

      <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_26rem]">
        <section aria-labelledby="timeline-title" className="min-w-0 xl:order-1">
          <h2 id="timeline-title" className="mb-3 text-[15px] font-semibold text-ink">
            Timeline{" "}
            <span className="text-xs font-normal text-ink-subtle">
              {op.attempts.length} attempt{op.attempts.length === 1 ? "" : "s"}, {op.audit.length} recorded event
              {op.audit.length === 1 ? "" : "s"}, oldest first
            </span>
          </h2>
          <OperationTimeline attempts={op.attempts} audit={op.audit} />
        </section>
        <div className="flex min-w-0 flex-col gap-6 xl:order-2">
          <Identity op={op} />
          <JsonSection title="Arguments" value={op.args} open={JSON.stringify(op.args ?? null).length < 600} />
          {op.evidenceDetail !== null ? <ReconciliationEvidence detail={op.evidenceDetail} /> : null}
        </div>
      </div>
    </article>
  );
}

/**
 * The facts that explain the decision: a waiting request's deadline and quorum, an expiry, the evidence so far, the
 * last error, a rejection.
 */
function Outcome({ op }: { op: Operation }) {
  const lines: ReactNode[] = [];
  if (op.phase === "AWAITING_APPROVAL") {
    lines.push(
      <Fact key="deadline" label="Request">
        <span data-approval-deadline>
          <ApprovalDeadline expiresAt={op.approvalExpiresAt} />
          {op.approvalExpiresAt ? (
            <span className="text-ink-subtle">
              {" "}
              · at {formatExactUtc(toEpochMs(op.approvalExpiresAt) ?? 0)}; nobody deciding by then means it is never
              approved
            </span>
          ) : null}
        </span>
      </Fact>,
    );
    if (quorumText(op.approvals)) {
      lines.push(
        <Fact key="quorum" label="Approvals">
          <QuorumCount approvals={op.approvals} />{" "}
          <span className="text-ink-subtle">
            from distinct people; the attempt is granted with the {ordinal(op.approvals.needed)}
          </span>
        </Fact>,
      );
    }
  }
  if (op.phase === "EXPIRED") {
    lines.push(
      <Fact key="expired" label="Expired">
        <span data-expired-note>
          Nobody approved or rejected this request before its deadline
          {op.approvalExpiresAt ? (
            <>
              {" "}
              (<RelativeTime live value={op.approvalExpiresAt} />)
            </>
          ) : null}
          , so opledger ended it: no attempt was granted, nothing more will be sent, and the agent was told its approval
          expired.
        </span>
      </Fact>,
    );
  }
  if (op.rejectionReason)
    lines.push(
      <Fact key="rejected" label="Rejected">
        {op.rejectionReason}
      </Fact>,
    );
  if (op.evidence !== "none") {
    lines.push(
      <Fact key="evidence" label="Reconciled as">
        {op.evidence === "applied" ? "the effect happened" : "the effect did not happen"}
        {op.providerId ? (
          <>
            {" "}
            · provider id <code className="font-mono text-[12px]">{op.providerId}</code>
          </>
        ) : null}
      </Fact>,
    );
  }
  if (op.approvedAttempt !== null && op.approvedAttempt > op.attempt) {
    lines.push(
      <Fact key="approved" label="Approved">
        attempt {op.approvedAttempt} may be dispatched once
      </Fact>,
    );
  }
  if (op.lastError && op.phase !== "CONFIRMED") {
    lines.push(
      <Fact key="error" label="Last error">
        <LastError error={op.lastError} />
      </Fact>,
    );
  }
  if (op.notBefore && Date.parse(op.notBefore) > Date.parse(op.updatedAt)) {
    lines.push(
      <Fact key="notBefore" label="Next attempt">
        not before <RelativeTime live value={op.notBefore} />
      </Fact>,
    );
  }
  if (lines.length === 0) return null;
  return <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-[13px]">{lines}</dl>;
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-ink-subtle">{label}</dt>
      <dd className="text-ink">{children}</dd>
    </>
  );
}

function Identity({ op }: { op: Operation }) {
  const mono = "font-mono text-[12.5px] break-all";
  return (
    <section aria-labelledby="identity-title">
      <h2 id="identity-title" className="mb-2 text-[15px] font-semibold text-ink">
        Identity
      </h2>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1.5 rounded-lg border border-line px-4 py-3 text-[13px]">
        <Fact label="Operation">
          <span className={mono}>{op.id}</span>
        </Fact>
        <Fact label="Tool">
          <span className={mono}>{op.tool}</span> ·{" "}
          <Link
            href={`/contracts/${encodeURIComponent(op.tool)}`}
            className="underline underline-offset-4 hover:text-ink-muted"
          >
            contract v{op.contractVersion}
          </Link>
        </Fact>
        <Fact label="Effect class">
          <EffectClassText effect={op.effect} />
        </Fact>
        <Fact label="Called">{op.via === "mcp" ? "through the MCP gateway" : "over the agent API"}</Fact>
        <Fact label="Idempotency key">
          <span className={mono}>{op.idempotencyKey}</span>
        </Fact>
        <Fact label="Run">
          {op.runId ? (
            <Link
              href={`/runs/${encodeURIComponent(op.runId)}`}
              className={`${mono} underline-offset-4 hover:underline`}
              title="The run's operations on a time axis"
            >
              {op.runId}
            </Link>
          ) : (
            <None />
          )}
        </Fact>
        <Fact label="Agent">{op.agentId ? <span className={mono}>{op.agentId}</span> : <None />}</Fact>
        <Fact label="Attempts">
          <AttemptCount attempt={op.attempt} maxAttempts={op.maxAttempts} />{" "}
          <span className="text-ink-subtle">dispatched of the budget</span>
        </Fact>
        <Fact label="Lease">
          {op.leaseOwner ? (
            <>
              <span className={mono}>{op.leaseOwner}</span> · fence <span className="font-mono">{op.fence}</span>
              {op.leaseExpiresAt ? (
                <>
                  {" "}
                  · expires <RelativeTime live value={op.leaseExpiresAt} />
                </>
              ) : null}
            </>
          ) : (
            <>
              none · fence <span className="font-mono">{op.fence}</span>
            </>
          )}
        </Fact>
        <Fact label="Provider id">{op.providerId ? <span className={mono}>{op.providerId}</span> : <None />}</Fact>
        <Fact label="Created">
          <RelativeTime live value={op.createdAt} />
        </Fact>
        <Fact label="Last change">
          <RelativeTime live value={op.updatedAt} />
        </Fact>
      </dl>
    </section>
  );
}

/**
 * An MCP call made again after its answer was delivered is a new operation: the earlier one, as it ended. A person
 * deciding on a held repeat (a suspected duplicate) sees that the same call already succeeded, and when.
 */
function RepeatLink({ op }: { op: Operation }) {
  const earlier = op.repeated;
  if (!earlier) return null;
  const ended = earlier.phase === "CONFIRMED" ? "succeeded" : earlier.phase === "FAILED" ? "failed" : "ended";
  return (
    <p className="mt-1 text-[13px] text-ink-muted" data-repeat-of={earlier.id}>
      A repeat: the same call {ended} at {formatExactUtc(Date.parse(earlier.at))}, operation{" "}
      <Link
        href={`/operations/${encodeURIComponent(earlier.id)}`}
        className="font-mono text-[12.5px] underline underline-offset-4 hover:text-ink"
      >
        {earlier.id}
      </Link>
    </p>
  );
}

/** A replay and its original point at each other (a replay is a new operation with its own key). */
function ReplayLinks({ op }: { op: Operation }) {
  if (!op.replayOf && op.replays.length === 0) return null;
  const link = "font-mono text-[12.5px] underline underline-offset-4 hover:text-ink";
  return (
    <p className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-[13px] text-ink-muted">
      {op.replayOf ? (
        <span data-replay-of={op.replayOf}>
          Replay of{" "}
          <Link href={`/operations/${encodeURIComponent(op.replayOf)}`} className={link}>
            {op.replayOf}
          </Link>
        </span>
      ) : null}
      {op.replays.length > 0 ? (
        <span data-replays>
          Replayed as{" "}
          {op.replays.map((id, i) => (
            <span key={id}>
              {i > 0 ? ", " : ""}
              <Link href={`/operations/${encodeURIComponent(id)}`} className={link} data-replay-link={id}>
                {id}
              </Link>
            </span>
          ))}
        </span>
      ) : null}
    </p>
  );
}

function None() {
  return <span className="text-ink-subtle">—</span>;
}

function JsonSection({ title, value, open }: { title: string; value: unknown; open: boolean }) {
  return (
    <section>
      <details open={open} className="group rounded-lg border border-line">
        <summary className="cursor-pointer rounded-lg px-4 py-2.5 text-[15px] font-semibold text-ink select-none hover:bg-surface-muted">
          {title}
        </summary>
        <pre className="max-h-[32rem] overflow-auto border-t border-line bg-surface-sunken px-4 py-3 font-mono text-[12px] leading-relaxed text-ink">
          {JSON.stringify(value, null, 2)}
        </pre>
      </details>
    </section>
  );
}

/** "second", "third": the approval that completes a quorum of `n`. */
function ordinal(n: number): string {
  const words = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
  return words[n - 1] ?? `${n}th`;
}
