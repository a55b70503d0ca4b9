// New contract page: an admin writes the first version of a tool's contract.
import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { ContractForm } from "@/components/contracts/contract-form";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/auth/roles";
import { requirePageUser } from "@/lib/auth/session";
import { dependencyNames } from "@/lib/ledger/dependencies/dependencies";
import { ledger } from "@/lib/ledger/ledger";

export const metadata: Metadata = { title: "New contract" };

export default async function NewContractPage() {
  const user = await requirePageUser("viewer");
  // A 403 with app/forbidden.tsx's explanation; nothing has been sent yet, so the status is a real one.
  if (!hasRole(user.role, "admin")) forbidden();
  const dependencies = await dependencyNames(ledger());
  return (
    <>
      <PageHeader
        title="New contract"
        description="Say what kind of side effect the tool has and how its calls may be retried; dispatches for the tool are accepted from then on."
      />
      <ContractForm mode="create" initial={null} knownDependencies={dependencies} />
    </>
  );
}
