// Audit page: every recorded transition and change, with who made it and why.
import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Audit" };

export default function AuditPage() {
  return (
    <>
      <PageHeader title="Audit" description="Who changed what, from which phase to which, and why." />
      <EmptyState title="No audit records yet.">
        Every transition — a dispatch, a confirmation, an approval, a reconciliation, a contract edit — writes an audit
        record in the same transaction, naming the user, API key or system that made it and the reason given.
      </EmptyState>
    </>
  );
}
