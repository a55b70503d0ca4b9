// Unknowns page: operations whose outcome was lost after dispatch, oldest first.
import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Unknowns" };

export default function UnknownsPage() {
  return (
    <>
      <PageHeader
        title="Unknowns"
        description="Operations whose outcome was lost after they were dispatched, oldest first. Look each one up before anything is retried."
      />
      <EmptyState title="No operations are waiting for reconciliation.">
        An operation lands here when its outcome was lost after it was dispatched — a timeout, a crash — and someone
        must look the effect up before anything is retried.
      </EmptyState>
    </>
  );
}
