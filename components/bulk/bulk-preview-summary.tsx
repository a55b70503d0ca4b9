"use client";
// A preview as the person reads it before running: the exact count, by tool and class, what will be done, what is
// skipped and why, and the warning before granting attempts over NON_RETRYABLE tools.
import { Notice } from "@/components/ui/form-controls";
import { TableHeader } from "@/components/ui/table-header";
import type { BulkPreview } from "@/lib/ledger/bulk/preview";
import { SKIP_REASONS } from "@/lib/ledger/bulk/skip-reasons";

function tally<T extends string>(values: readonly T[]): [T, number][] {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

const WILL_DO: Record<string, string> = {
  lookup: "provider lookup, then reconcile what it proves",
  reconcile_applied: "reconcile as applied (the effect happened)",
  reconcile_not_applied: "reconcile as not applied (the effect did not happen)",
  approve: "approve the next attempt",
  reject: "reject (end the operation)",
};

const SHOWN_SKIPPED = 20;

export function BulkPreviewSummary({ preview }: { preview: BulkPreview }) {
  const acting = preview.items.length;
  const willDo = tally(preview.items.map((i) => i.willDo));
  const then = tally(preview.items.map((i) => i.then).filter((t): t is NonNullable<typeof t> => t !== null));
  const why = tally(preview.skipped.map((s) => s.why));
  return (
    <div className="flex flex-col gap-3" data-bulk-preview={preview.previewId}>
      <p className="text-[15px] font-semibold text-ink tabular-nums">
        <span data-bulk-matched={preview.matched}>{preview.matched.toLocaleString("en")}</span> matched ·{" "}
        <span data-bulk-acting={acting}>{acting.toLocaleString("en")}</span> will be acted on ·{" "}
        <span data-bulk-skipped={preview.skipped.length}>{preview.skipped.length.toLocaleString("en")}</span> skipped
      </p>
      {preview.warning ? (
        <Notice tone="warning" title="Effects may happen again">
          <span data-bulk-warning={preview.warning.count}>{preview.warning.message}</span>
        </Notice>
      ) : null}
      <div className="overflow-x-auto rounded-md border border-line">
        <table aria-label="Matched operations by tool and effect class" className="w-full text-left text-[13px]">
          <TableHeader
            look="caps"
            inset="px-2"
            columns={[
              "Tool",
              "Effect class",
              { label: "Acted on", align: "right" },
              { label: "Skipped", align: "right" },
            ]}
          />
          <tbody>
            {preview.groups.map((g) => (
              <tr key={`${g.tool}/${g.effect}`} className="border-b border-line last:border-b-0">
                <td className="px-2 py-1 font-mono">{g.tool}</td>
                <td className="px-2 py-1">{g.effect}</td>
                <td className="px-2 py-1 text-right tabular-nums">{g.acting.toLocaleString("en")}</td>
                <td className="px-2 py-1 text-right tabular-nums">{g.skipped.toLocaleString("en")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {willDo.length > 0 ? (
        <div>
          <h3 className="text-xs font-semibold tracking-wide text-ink-subtle uppercase">What will be done</h3>
          <ul className="mt-1 list-disc pl-5 text-ink">
            {willDo.map(([word, n]) => (
              <li key={word}>
                {n.toLocaleString("en")} × {WILL_DO[word] ?? word}
              </li>
            ))}
            {then.map(([action, n]) => (
              <li key={action} className="text-ink-muted">
                then the gate says {action} for {n.toLocaleString("en")}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {why.length > 0 ? (
        <div>
          <h3 className="text-xs font-semibold tracking-wide text-ink-subtle uppercase">Skipped, and why</h3>
          <ul className="mt-1 list-disc pl-5 text-ink">
            {why.map(([reason, n]) => (
              <li key={reason}>
                {n.toLocaleString("en")} — {SKIP_REASONS[reason]}
              </li>
            ))}
          </ul>
          <details className="mt-1 text-xs text-ink-muted">
            <summary className="cursor-pointer">The skipped operations</summary>
            <ul className="mt-1 font-mono">
              {preview.skipped.slice(0, SHOWN_SKIPPED).map((s) => (
                <li key={s.id}>
                  {s.id} {s.tool} {s.phase}: {s.why}
                </li>
              ))}
              {preview.skipped.length > SHOWN_SKIPPED ? (
                <li>… and {(preview.skipped.length - SHOWN_SKIPPED).toLocaleString("en")} more</li>
              ) : null}
            </ul>
          </details>
        </div>
      ) : null}
    </div>
  );
}
