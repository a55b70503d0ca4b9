// A side-effect class as a neutral, square monospace tag with its meaning on hover; square so it never reads as a phase
// pill.
import type { EffectClass } from "@/lib/retry-gate/types";
import { effectHelp } from "./contract-words";

export function EffectBadge({ effect }: { effect: EffectClass }) {
  return (
    <span
      title={effectHelp(effect)}
      data-effect={effect}
      className={
        "inline-block rounded-sm bg-surface-sunken px-1.5 py-px font-mono text-[11.5px] font-medium " +
        "whitespace-nowrap text-ink ring-1 ring-line-strong ring-inset"
      }
    >
      {effect}
    </span>
  );
}
