// Contracts page: the tool contracts that say what kind of side effect each tool has.
import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Contracts" };

export default function ContractsPage() {
  return (
    <>
      <PageHeader
        title="Contracts"
        description="What kind of side effect each tool has, and how its calls may be retried and reconciled."
      />
      <EmptyState title="No tool contracts yet.">
        A contract says whether a tool is pure, idempotent, replayable, unknown or non-retryable, whether it needs an
        idempotency key, how to reconcile it, whether it needs approval, and its retry budget. Until a tool has a
        contract, every dispatch for it is refused; each edit becomes a new version with its author and a diff.
      </EmptyState>
    </>
  );
}
