// The admin page's button looks, as class strings so links, triggers and submit buttons share them.
import { assertNever } from "@/lib/retry-gate/exhaustive";

export type ButtonTone = "primary" | "secondary" | "danger" | "row";

const BASE =
  "inline-flex items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap disabled:cursor-not-allowed disabled:opacity-60";

export function buttonClass(tone: ButtonTone): string {
  switch (tone) {
    case "primary":
      return `${BASE} bg-ink px-3 py-1.5 text-surface hover:bg-ink/85`;
    case "secondary":
      return `${BASE} bg-surface px-3 py-1.5 text-ink ring-1 ring-line-strong ring-inset hover:bg-surface-sunken`;
    case "danger":
      return `${BASE} bg-phase-failed px-3 py-1.5 text-white hover:bg-phase-failed/85`;
    case "row":
      return `${BASE} px-2 py-1 text-xs text-ink-muted ring-1 ring-line ring-inset hover:bg-surface-sunken hover:text-ink`;
    default:
      return assertNever(tone, "button tone");
  }
}
