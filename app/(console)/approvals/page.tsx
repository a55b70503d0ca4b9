// Approvals page: operations that wait for a person to approve or reject the next attempt.
import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Approvals" };

export default function ApprovalsPage() {
  return (
    <>
      <PageHeader
        title="Approvals"
        description="Operations that may only be retried once a person approves; approve or reject each one with a reason."
      />
      <EmptyState title="No operations are waiting for approval.">
        An operation lands here when repeating it could create a new effect — a non-retryable tool that failed, an
        operation whose contract requires approval, or an unknown outcome reconciled as “did not happen”. Approving
        grants exactly one more attempt, and every decision is recorded with your name and reason.
      </EmptyState>
    </>
  );
}
