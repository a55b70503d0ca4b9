// Dependencies page: the circuit breaker of every provider the tools call.
import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Dependencies" };

export default function DependenciesPage() {
  return (
    <>
      <PageHeader
        title="Dependencies"
        description="The providers your tools call, and whether their circuit breakers let calls through."
      />
      <EmptyState title="No dependencies are being tracked.">
        A dependency appears here once a tool contract names it. While its breaker is open, calls fail fast with an
        “unavailable” decision instead of spending their retry budget; you can open or close a breaker by hand, with a
        reason.
      </EmptyState>
    </>
  );
}
