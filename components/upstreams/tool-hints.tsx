// An upstream tool's hints as the upstream gave them, under a label saying they are its own and not trusted: the
// contract, which a person writes, is what the gateway goes by.
import type { UpstreamToolRow } from "@/lib/console/upstreams-view";

const HINTS = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "open world"],
] as const;

export function ToolHints({ hints }: { hints: UpstreamToolRow["hints"] }) {
  const given = HINTS.filter(([key]) => hints[key] !== undefined);
  if (given.length === 0) return <span className="text-ink-subtle">none given</span>;
  return (
    <ul className="flex flex-wrap gap-1" aria-label="Hints from the upstream, untrusted">
      {given.map(([key, label]) => (
        <li
          key={key}
          title={`${key}: ${String(hints[key])} (the upstream's own hint, untrusted)`}
          className="rounded-sm border border-dashed border-line-strong px-1.5 py-px font-mono text-[11.5px] text-ink-muted"
        >
          {hints[key] ? label : `not ${label}`}
        </li>
      ))}
    </ul>
  );
}
