// The evidence of a provider lookup, for the Reconcile dialog: what the provider answered, its id for the effect, and
// the verdict.
import { formatExactUtc } from "@/components/ui/format-time";
import { MonoId } from "@/components/ui/mono-id";
import { StatusPill } from "@/components/ui/status-pill";
import type { LookupEvidence } from "@/lib/ledger/outbound/provider-lookup";

export type { LookupEvidence };

export interface LookupEvidencePanelProps {
  evidence: LookupEvidence;
  className?: string;
}

interface VerdictStyle {
  label: string;
  tone: string;
  dot: string;
  value: "applied" | "not_applied" | "undetermined";
}

// Class names are written out in full so Tailwind can find them in the source.
function verdictStyle(applied: boolean | null): VerdictStyle {
  if (applied === true) {
    return {
      label: "Effect happened",
      tone: "bg-phase-confirmed-soft text-phase-confirmed-ink ring-phase-confirmed/30",
      dot: "bg-phase-confirmed",
      value: "applied",
    };
  }
  if (applied === false) {
    return {
      label: "Effect did not happen",
      tone: "bg-phase-planned-soft text-phase-planned-ink ring-phase-planned/30",
      dot: "bg-phase-planned",
      value: "not_applied",
    };
  }
  return {
    label: "Undetermined",
    tone: "bg-phase-unknown-soft text-phase-unknown-ink ring-phase-unknown/40",
    dot: "bg-phase-unknown",
    value: "undetermined",
  };
}

function exact(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? formatExactUtc(ms) : iso;
}

/**
 * The answer as the provider sent it, indented when it is whole JSON: a one-line record is hard to read under stress.
 */
function readableAnswer(excerpt: string, truncated: boolean): string {
  if (truncated) return excerpt;
  try {
    return JSON.stringify(JSON.parse(excerpt), null, 2);
  } catch {
    return excerpt;
  }
}

/** Shows what lookupOperationAction found; presentational, so it renders in a server or a client component. */
export function LookupEvidencePanel({ evidence, className = "" }: LookupEvidencePanelProps) {
  if (!evidence.ok) {
    return (
      <section
        aria-label="Provider lookup"
        data-lookup="failed"
        className={`rounded-md border border-phase-failed/40 bg-phase-failed-soft px-3 py-2 text-phase-failed-ink ${className}`}
      >
        <p className="font-medium">
          The lookup gave no evidence{evidence.status !== undefined ? ` (HTTP ${evidence.status})` : ""}.
        </p>
        <p className="mt-0.5">{evidence.reason}.</p>
        <p className="mt-1 text-xs">
          Nothing was changed. Try the lookup again, or decide from other evidence. Asked at{" "}
          {exact(evidence.lookedUpAt)}
          {evidence.url ? (
            <>
              {" "}
              from <span className="font-mono break-all">{evidence.url}</span>
            </>
          ) : null}
          .
        </p>
      </section>
    );
  }

  const verdict = verdictStyle(evidence.applied);
  return (
    <section
      aria-label="Provider lookup"
      data-lookup="ok"
      data-applied={verdict.value}
      className={`flex flex-col gap-2 rounded-md border border-line bg-surface-muted px-3 py-2 ${className}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <StatusPill
          label={verdict.label}
          toneClassName={verdict.tone}
          dotClassName={verdict.dot}
          data={{ "data-verdict": verdict.value }}
        />
        <span className="text-ink-muted">{evidence.verdict}</span>
      </div>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-[13px]">
        <dt className="text-ink-muted">Provider answered</dt>
        <dd className="font-mono tabular-nums" data-field="status">
          HTTP {evidence.status}
        </dd>
        <dt className="text-ink-muted">Provider id</dt>
        <dd data-field="provider-id">
          {evidence.providerId ? (
            <MonoId value={evidence.providerId} maxChars={32} label="Provider id" />
          ) : (
            <span className="text-ink-subtle">none in the answer</span>
          )}
        </dd>
        <dt className="text-ink-muted">Asked</dt>
        <dd className="min-w-0">
          <span className="font-mono text-[12.5px] break-all">GET {evidence.url}</span>
          <span className="block text-xs text-ink-subtle">{exact(evidence.lookedUpAt)}</span>
        </dd>
      </dl>
      <div>
        <p className="mb-1 text-xs text-ink-muted">
          The provider&apos;s answer{evidence.truncated ? " (first 2 KB)" : ""}
        </p>
        {evidence.excerpt ? (
          <pre
            className={
              "max-h-64 overflow-auto rounded border border-line bg-surface px-2 py-1.5 font-mono text-xs break-all " +
              "whitespace-pre-wrap"
            }
          >
            {readableAnswer(evidence.excerpt, evidence.truncated)}
          </pre>
        ) : (
          <p className="text-xs text-ink-subtle">The answer had no body.</p>
        )}
      </div>
    </section>
  );
}
