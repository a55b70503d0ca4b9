// New contract page: an admin writes the first version of a tool's contract.
import type { Metadata } from "next";
import { Forbidden } from "@/components/auth/forbidden";
import { ContractForm } from "@/components/contracts/contract-form";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/auth/roles";
import { requirePageUser } from "@/lib/auth/session";
import { dependencyNames } from "@/lib/ledger/dependencies/dependencies";
import { ledger } from "@/lib/ledger/ledger";

export const metadata: Metadata = { title: "New contract" };

export default async function NewContractPage() {
  const user = await requirePageUser("viewer");
  if (!hasRole(user.role, "admin")) return <Forbidden needed="admin" what="Creating tool contracts" user={user} />;
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
