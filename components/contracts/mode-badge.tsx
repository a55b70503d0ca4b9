// An observe-mode tool's tag: the word itself, dashed, so the mode reads without colour and never as a class or phase.
import { modeHelp } from "./contract-words";

export function ObserveBadge() {
  return (
    <span
      title={modeHelp("observe")}
      data-mode="observe"
      className={
        "inline-block rounded-full border border-dashed border-line-strong px-1.5 text-[11.5px] font-medium " +
        "whitespace-nowrap text-ink-muted"
      }
    >
      observe
    </span>
  );
}
