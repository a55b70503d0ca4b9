// Button looks for the whole console, as class strings so links, dialog triggers and submit buttons share them.
import { assertNever } from "@/lib/retry-gate/exhaustive";

export type ButtonTone = "primary" | "secondary" | "danger" | "quiet";

const BUTTON_BASE =
  "inline-flex items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap " +
  "disabled:cursor-not-allowed disabled:opacity-60";

export function buttonClass(tone: ButtonTone, size: "md" | "sm" = "md"): string {
  const pad = size === "sm" ? "px-2 py-1 text-xs" : "px-3 py-1.5";
  switch (tone) {
    case "primary":
      return `${BUTTON_BASE} ${pad} bg-ink text-surface hover:bg-ink/85`;
    case "secondary":
      return `${BUTTON_BASE} ${pad} bg-surface text-ink ring-1 ring-line-strong ring-inset hover:bg-surface-sunken`;
    case "danger":
      return `${BUTTON_BASE} ${pad} bg-phase-failed text-white hover:bg-phase-failed/85`;
    case "quiet":
      return `${BUTTON_BASE} ${pad} text-ink-muted ring-1 ring-line ring-inset hover:bg-surface-sunken hover:text-ink`;
    default:
      return assertNever(tone, "button tone");
  }
}
