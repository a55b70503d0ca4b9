// Contracts page: the tool contracts that say what kind of side effect each tool has; admins create and edit them.
import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { buttonClass } from "@/components/ui/button-styles";
import { ContractsTable } from "@/components/contracts/contracts-table";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser, type SessionUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { listContracts } from "@/lib/ledger/contracts/contract-versions";
import { PageSkeleton } from "../page-skeleton";

export const metadata: Metadata = { title: "Contracts" };

export default async function ContractsPage() {
  // Before anything is sent, so a missing session is a real redirect; the list may stream.
  const user = await requirePageUser("viewer");
  return (
    <Suspense fallback={<PageSkeleton />}>
      <ContractsContent user={user} />
    </Suspense>
  );
}

async function ContractsContent({ user }: { user: SessionUser }) {
  const canEdit = hasRole(user.role, "admin");
  const contracts = await listContracts(ledger());
  const newButton = canEdit ? (
    <Link href="/contracts/new" className={buttonClass("primary")}>
      New contract
    </Link>
  ) : null;

  return (
    <>
      <PageHeader
        title="Contracts"
        description="What kind of side effect each tool has, and how its calls may be retried and reconciled."
        actions={newButton}
      />
      {contracts.length === 0 ? (
        <EmptyState title="No tool contracts yet." action={newButton}>
          A contract says whether a tool is pure, idempotent, replayable, unknown or non-retryable, whether it needs an
          idempotency key, how to reconcile it, whether it needs approval, and its retry budget. Until a tool has a
          contract, every dispatch for it is refused; each edit becomes a new version with its author and a diff.
          {canEdit ? null : " An admin creates contracts here or through the API."}
        </EmptyState>
      ) : (
        <>
          <ContractsTable contracts={contracts} />
          <p className="mt-3 text-xs text-ink-subtle">
            {contracts.length} {contracts.length === 1 ? "contract" : "contracts"}. Operations keep the version they
            were planned under; an edit applies to operations planned after it.
            {canEdit ? null : " Editing needs the admin role."}
          </p>
        </>
      )}
    </>
  );
}
