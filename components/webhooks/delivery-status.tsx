// A delivery's state as a pill: words first, colour only repeating them.
import { StatusPill } from "@/components/ui/status-pill";
import type { DeliveryStatus } from "@/lib/services/notify/webhook-schema";

const LOOKS: Record<DeliveryStatus, { label: string; tone: string; dot: string }> = {
  delivered: {
    label: "Delivered",
    tone: "bg-phase-confirmed-soft text-phase-confirmed-ink ring-phase-confirmed/30",
    dot: "bg-phase-confirmed",
  },
  pending: {
    label: "Pending",
    tone: "bg-phase-unknown-soft text-phase-unknown-ink ring-phase-unknown/40",
    dot: "bg-phase-unknown",
  },
  failed: {
    label: "Given up",
    tone: "bg-phase-failed-soft text-phase-failed-ink ring-phase-failed/30",
    dot: "bg-phase-failed",
  },
};

export function DeliveryStatusPill({ status }: { status: DeliveryStatus }) {
  const look = LOOKS[status];
  return (
    <StatusPill label={look.label} toneClassName={look.tone} dotClassName={look.dot} data={{ "data-status": status }} />
  );
}
