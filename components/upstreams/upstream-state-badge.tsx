// An upstream's state as a labelled pill: ready (green), starting or restarting (blue), failed (red), idle or stopped
// (grey).
import { StatusPill } from "@/components/ui/status-pill";
import type { UpstreamState } from "@/lib/services/upstreams/types";
import { assertNever } from "@/lib/retry-gate/exhaustive";

function tone(state: UpstreamState): { tone: string; dot: string } {
  switch (state) {
    case "ready":
      return {
        tone: "bg-phase-confirmed-soft text-phase-confirmed-ink ring-phase-confirmed/30",
        dot: "bg-phase-confirmed",
      };
    case "starting":
    case "restarting":
      return {
        tone: "bg-phase-dispatched-soft text-phase-dispatched-ink ring-phase-dispatched/30",
        dot: "bg-phase-dispatched",
      };
    case "failed":
      return {
        tone: "bg-decision-unavailable-soft text-decision-unavailable-ink ring-decision-unavailable/30",
        dot: "bg-decision-unavailable",
      };
    case "idle":
    case "stopped":
      return { tone: "bg-surface-sunken text-ink-muted ring-line-strong", dot: "bg-ink-subtle" };
    default:
      return assertNever(state, "upstream state");
  }
}

export function UpstreamStateBadge({ state }: { state: UpstreamState }) {
  const { tone: toneClassName, dot } = tone(state);
  return (
    <StatusPill
      label={state}
      toneClassName={toneClassName}
      dotClassName={dot}
      data={{ "data-upstream-state": state }}
    />
  );
}
