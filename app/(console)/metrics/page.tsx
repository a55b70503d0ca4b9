// Metrics page: where the wall-clock went, how often outcomes are lost, reconciled, rejected as duplicates or sent to a
// person, retries per tool and the drift of the outcome mix, over the last hour or day.
import type { Metadata } from "next";
import { Suspense } from "react";
import { MetricsBoard } from "@/components/metrics/metrics-board";
import { PrometheusNote } from "@/components/metrics/prometheus-note";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { consoleMetrics } from "@/lib/ledger/reads/metrics";
import { METRIC_WINDOWS, type MetricWindow } from "@/lib/ledger/reads/metrics-series";
import { MetricsSkeleton } from "./metrics-skeleton";

export const metadata: Metadata = { title: "Metrics" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

function windowOf(value: string | string[] | undefined): MetricWindow {
  const raw = Array.isArray(value) ? value[0] : value;
  return (METRIC_WINDOWS as readonly string[]).includes(raw ?? "") ? (raw as MetricWindow) : "1h";
}

export default async function MetricsPage({ searchParams }: Props) {
  // Before anything is sent, so a missing session is a real redirect; the charts' data may stream.
  await requirePageUser("viewer");
  const window = windowOf((await searchParams).window);
  return (
    <Suspense fallback={<MetricsSkeleton />}>
      <MetricsContent window={window} />
    </Suspense>
  );
}

async function MetricsContent({ window }: { window: MetricWindow }) {
  const now = new Date();
  const initial = await consoleMetrics(ledger(), window, now);
  const { snapshot } = initial;
  const nothingYet =
    Object.values(snapshot.operationsByPhase).every((n) => n === 0) &&
    snapshot.duplicateRejectionsTotal === 0 &&
    snapshot.staleFenceRejectionsTotal === 0;

  return (
    <>
      <PageHeader
        title="Metrics"
        description={
          "Where the wall-clock went, and how often outcomes are lost, reconciled, rejected as duplicates or sent " +
          "to a person, over time."
        }
      />
      {nothingYet ? (
        <div className="flex flex-col gap-5">
          <EmptyState title="No measurements yet.">
            Charts of unknown outcomes, reconciliations, duplicate rejections, approval interruptions and retries by
            effect class appear here once agents have planned operations through the ledger. Every count comes from the
            audit trail and the attempts table, so there is nothing to switch on.
          </EmptyState>
          <PrometheusNote />
        </div>
      ) : (
        <div className="flex flex-col gap-6">
          <MetricsBoard window={window} initial={initial} />
          <PrometheusNote />
        </div>
      )}
    </>
  );
}
