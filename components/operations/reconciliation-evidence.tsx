// The evidence a reconciliation was recorded with, on the operation page: a provider lookup as the lookup panel, a
// person's note as text, anything else as JSON.
import { formatExactUtc } from "@/components/ui/format-time";
import type { LookupEvidence } from "@/lib/ledger/outbound/provider-lookup";
import { LookupEvidencePanel } from "./lookup-evidence";

type Shown =
  { kind: "lookup"; evidence: LookupEvidence } | { kind: "note"; note: string } | { kind: "json"; value: unknown };

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * A provider lookup as auto-reconcile stores it; checked field by field, because stored JSON may be older or hand-made.
 */
function asLookup(value: Record<string, unknown>): LookupEvidence | null {
  if (value.source !== "provider_lookup" || typeof value.lookedUpAt !== "string") return null;
  if (value.ok === true) {
    const whole =
      typeof value.url === "string" &&
      typeof value.status === "number" &&
      typeof value.verdict === "string" &&
      typeof value.excerpt === "string" &&
      typeof value.truncated === "boolean" &&
      (value.providerId === null || typeof value.providerId === "string") &&
      (value.applied === null || typeof value.applied === "boolean");
    return whole ? (value as unknown as LookupEvidence) : null;
  }
  if (value.ok === false && typeof value.reason === "string" && (value.url === null || typeof value.url === "string")) {
    return value as unknown as LookupEvidence;
  }
  return null;
}

function shown(evidence: unknown): Shown {
  const fields = record(evidence);
  if (fields) {
    const lookup = asLookup(fields);
    if (lookup) return { kind: "lookup", evidence: lookup };
    // The console keeps what the person looked at as text: {note, source: "console"}.
    if (typeof fields.note === "string" && Object.keys(fields).every((key) => key === "note" || key === "source")) {
      return { kind: "note", note: fields.note };
    }
  }
  return { kind: "json", value: evidence };
}

/** `detail` is the operation's evidenceDetail: `{ evidence, by, at }` as the ledger records a reconciliation. */
export function ReconciliationEvidence({ detail }: { detail: unknown }) {
  const fields = record(detail);
  const by = typeof fields?.by === "string" ? fields.by : null;
  const atMs = typeof fields?.at === "string" ? Date.parse(fields.at) : Number.NaN;
  const what = shown(fields && "evidence" in fields ? fields.evidence : detail);
  const box =
    "max-h-[32rem] overflow-auto px-4 py-3 font-mono text-[12px] leading-relaxed break-words whitespace-pre-wrap text-ink";

  return (
    <section aria-labelledby="reconciliation-evidence-title">
      <details open className="rounded-lg border border-line">
        <summary
          id="reconciliation-evidence-title"
          className="cursor-pointer rounded-lg px-4 py-2.5 text-[15px] font-semibold text-ink select-none hover:bg-surface-muted"
        >
          Reconciliation evidence
        </summary>
        <div className="border-t border-line bg-surface-sunken">
          {by || Number.isFinite(atMs) ? (
            <p className="px-4 pt-3 text-xs text-ink-muted">
              Recorded
              {by ? (
                <>
                  {" "}
                  by <span className="font-mono text-ink">{by}</span>
                </>
              ) : null}
              {Number.isFinite(atMs) ? <> at {formatExactUtc(atMs)}</> : null}
            </p>
          ) : null}
          {what.kind === "lookup" ? (
            <LookupEvidencePanel evidence={what.evidence} className="m-4" />
          ) : what.kind === "note" ? (
            <pre className={box} data-evidence="note">
              {what.note}
            </pre>
          ) : (
            <pre className={box} data-evidence="json">
              {JSON.stringify(what.value, null, 2)}
            </pre>
          )}
        </div>
      </details>
    </section>
  );
}
