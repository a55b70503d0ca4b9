// Ledger page: every operation the agents have planned, newest first, filterable and live.
import type { Metadata } from "next";
import { Suspense } from "react";
import { LedgerTable } from "@/components/operations/ledger-table";
import { TableSkeleton } from "@/components/operations/list-states";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/auth/roles";
import { requirePageUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Ledger" };

export default async function LedgerPage() {
  const user = await requirePageUser("viewer");
  return (
    <>
      <PageHeader title="Ledger" description="Every side-effecting tool call your agents have made, newest first." />
      {/* The table reads its filters from the URL. */}
      <Suspense fallback={<TableSkeleton columns={8} label="Loading operations…" />}>
        <LedgerTable canAct={hasRole(user.role, "operator")} />
      </Suspense>
    </>
  );
}
