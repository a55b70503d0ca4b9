// Ledger page: every operation the agents have planned, newest first.
import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Ledger" };

export default function LedgerPage() {
  return (
    <>
      <PageHeader title="Ledger" description="Every side-effecting tool call your agents have made, newest first." />
      <EmptyState title="The ledger has no operations yet.">
        Every tool call an agent makes through opledger is written here before its request leaves, with its phase, tool,
        effect class, run and age. Once an agent runtime plans its first operation through the ledger API or the
        executor, it appears at the top of this list.
      </EmptyState>
    </>
  );
}
