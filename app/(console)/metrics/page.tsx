// Metrics page: how often outcomes are lost, reconciled, rejected as duplicates or sent for approval.
import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Metrics" };

export default function MetricsPage() {
  return (
    <>
      <PageHeader
        title="Metrics"
        description="How often outcomes are lost, reconciled, rejected as duplicates or sent to a person, over time."
      />
      <EmptyState title="No measurements yet.">
        Charts of unknown outcomes, reconciliations, duplicate rejections, approval interruptions and retries by effect
        class appear here once operations have been recorded. The same counters are exported for scraping.
      </EmptyState>
    </>
  );
}
