// The Prometheus series: counters from the audit trail and attempts, gauges from the operations table.
import type { Ledger } from "@/lib/ledger/ledger";
import { PHASES } from "@/lib/retry-gate/types";
import { EFFECT_CLASSES } from "@/lib/retry-gate/types";
import { countByPhase } from "./operations";

export interface MetricsSnapshot {
  unknownOutcomes: number;
  unknownOutcomesTotal: number;
  reconciliationsTotal: number;
  duplicateRejectionsTotal: number;
  approvalInterruptionsTotal: number;
  staleFenceRejectionsTotal: number;
  retriesByEffect: Record<string, number>;
  operationsByPhase: Record<string, number>;
}

const COUNTED_ACTIONS = {
  unknownOutcomesTotal: "operation.outcome_unknown",
  reconciliationsTotal: "operation.reconciled",
  duplicateRejectionsTotal: "operation.duplicate_rejected",
  approvalInterruptionsTotal: "operation.approval_requested",
  staleFenceRejectionsTotal: "operation.stale_fence_rejected",
} as const;

export async function metricsSnapshot(ledger: Ledger): Promise<MetricsSnapshot> {
  const [actions, retries, byPhase] = await Promise.all([
    ledger.db.auditEvent.groupBy({
      by: ["action"],
      where: { action: { in: Object.values(COUNTED_ACTIONS) } },
      _count: { _all: true },
    }),
    ledger.db.$queryRaw<{ effect: string; retries: bigint | number }[]>`
      SELECT o."effect" AS effect, COUNT(*) AS retries
      FROM "Attempt" a JOIN "Operation" o ON o."id" = a."operationId"
      WHERE a."number" > 1 GROUP BY o."effect"`,
    countByPhase(ledger),
  ]);
  const count = (action: string): number => actions.find((a) => a.action === action)?._count._all ?? 0;
  return {
    unknownOutcomes: byPhase.UNKNOWN ?? 0,
    unknownOutcomesTotal: count(COUNTED_ACTIONS.unknownOutcomesTotal),
    reconciliationsTotal: count(COUNTED_ACTIONS.reconciliationsTotal),
    duplicateRejectionsTotal: count(COUNTED_ACTIONS.duplicateRejectionsTotal),
    approvalInterruptionsTotal: count(COUNTED_ACTIONS.approvalInterruptionsTotal),
    staleFenceRejectionsTotal: count(COUNTED_ACTIONS.staleFenceRejectionsTotal),
    retriesByEffect: Object.fromEntries(
      EFFECT_CLASSES.map((e) => [e, Number(retries.find((r) => r.effect === e)?.retries ?? 0)]),
    ),
    operationsByPhase: Object.fromEntries(PHASES.map((p) => [p, byPhase[p] ?? 0])),
  };
}

function series(name: string, help: string, type: "counter" | "gauge", samples: [string, number][]): string {
  return [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} ${type}`,
    ...samples.map(([labels, v]) => `${name}${labels} ${v}`),
  ].join("\n");
}

export function prometheusText(m: MetricsSnapshot): string {
  return (
    [
      series("opledger_unknown_outcomes", "Operations currently in UNKNOWN, waiting for reconciliation.", "gauge", [
        ["", m.unknownOutcomes],
      ]),
      series("opledger_unknown_outcomes_total", "Operations that entered UNKNOWN.", "counter", [
        ["", m.unknownOutcomesTotal],
      ]),
      series("opledger_reconciliations_total", "Reconciliations recorded.", "counter", [["", m.reconciliationsTotal]]),
      series(
        "opledger_duplicate_rejections_total",
        "Plans refused because an idempotency key was reused with different args.",
        "counter",
        [["", m.duplicateRejectionsTotal]],
      ),
      series("opledger_approval_interruptions_total", "Times the gate asked a person to approve.", "counter", [
        ["", m.approvalInterruptionsTotal],
      ]),
      series(
        "opledger_stale_fence_rejections_total",
        "Writes refused because the worker's fencing token was stale.",
        "counter",
        [["", m.staleFenceRejectionsTotal]],
      ),
      series(
        "opledger_retries_total",
        "Attempts after the first, by effect class.",
        "counter",
        Object.entries(m.retriesByEffect).map(([e, v]) => [`{effect="${e}"}`, v]),
      ),
      series(
        "opledger_operations",
        "Operations by phase.",
        "gauge",
        Object.entries(m.operationsByPhase).map(([p, v]) => [`{phase="${p}"}`, v]),
      ),
    ].join("\n") + "\n"
  );
}
