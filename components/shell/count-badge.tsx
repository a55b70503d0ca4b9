// The live count next to a navigation entry; a missing count renders nothing rather than a guess.
import { assertNever } from "@/lib/retry-gate/exhaustive";

type CountTone = "unknown" | "approval";

export interface CountBadgeProps {
  /** Undefined while the count is not known: no badge is shown. */
  count: number | undefined;
  /** Noun for one item, e.g. "unknown operation". */
  singular: string;
  /** Noun for several items, e.g. "unknown operations". */
  plural: string;
  /** Colour used when the count is above zero; zero is always neutral. */
  tone: CountTone;
}

const MAX_SHOWN = 999;

function toneClass(tone: CountTone): string {
  switch (tone) {
    case "unknown":
      return "bg-phase-unknown-soft text-phase-unknown-ink ring-phase-unknown/40";
    case "approval":
      return "bg-phase-awaiting-approval-soft text-phase-awaiting-approval-ink ring-phase-awaiting-approval/40";
    default:
      return assertNever(tone, "count tone");
  }
}

export function CountBadge({ count, singular, plural, tone }: CountBadgeProps) {
  if (count === undefined) return null;
  const label = `${count} ${count === 1 ? singular : plural}`;
  const shown = count > MAX_SHOWN ? `${MAX_SHOWN}+` : String(count);
  const colour = count > 0 ? toneClass(tone) : "bg-surface-sunken text-ink-subtle ring-line-strong";
  return (
    <span
      title={label}
      className={
        "ml-auto inline-flex min-w-6 items-center justify-center rounded-full px-1.5 py-px text-xs font-medium " +
        `tabular-nums ring-1 ring-inset ${colour}`
      }
    >
      <span aria-hidden="true">{shown}</span>
      <span className="sr-only">({label})</span>
    </span>
  );
}
