// A circuit breaker's state as a labelled pill: closed lets calls through (green), open fails them fast (red),
// half-open lets one probe through (blue).
import { StatusPill } from "@/components/ui/status-pill";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { BreakerState } from "@/lib/retry-gate/types";

export function breakerLabel(state: BreakerState): string {
  switch (state) {
    case "closed":
      return "closed";
    case "open":
      return "open";
    case "half_open":
      return "half-open";
    default:
      return assertNever(state, "breaker state");
  }
}

function tone(state: BreakerState): { tone: string; dot: string } {
  switch (state) {
    case "closed":
      return {
        tone: "bg-phase-confirmed-soft text-phase-confirmed-ink ring-phase-confirmed/30",
        dot: "bg-phase-confirmed",
      };
    case "open":
      return {
        tone: "bg-decision-unavailable-soft text-decision-unavailable-ink ring-decision-unavailable/30",
        dot: "bg-decision-unavailable",
      };
    case "half_open":
      return {
        tone: "bg-phase-dispatched-soft text-phase-dispatched-ink ring-phase-dispatched/30",
        dot: "bg-phase-dispatched",
      };
    default:
      return assertNever(state, "breaker state");
  }
}

/** "open (forced)" when an operator pinned it, so the override is never mistaken for the counter's verdict. */
export function BreakerBadge({ state, forced }: { state: BreakerState; forced: boolean }) {
  const style = tone(state);
  return (
    <StatusPill
      label={`${breakerLabel(state)}${forced ? " (forced)" : ""}`}
      toneClassName={style.tone}
      dotClassName={style.dot}
      data={{ "data-breaker": state, "data-forced": forced ? "true" : "false" }}
    />
  );
}
