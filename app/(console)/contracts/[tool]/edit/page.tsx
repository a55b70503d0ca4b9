// Edit contract page: an admin changes a tool's contract; the save becomes a new version, refused if someone else saved
// first.
import type { Metadata } from "next";
import Link from "next/link";
import { forbidden, notFound } from "next/navigation";
import { ContractForm } from "@/components/contracts/contract-form";
import { linkClass } from "@/components/ui/form-controls";
import { contractPath, toolFromParam } from "@/components/contracts/contract-route";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser } from "@/lib/platform/auth/session";
import { dependencyNames } from "@/lib/ledger/dependencies/dependencies";
import { ledger } from "@/lib/ledger/ledger";
import { getContract } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError } from "@/lib/ledger/errors";

export async function generateMetadata({ params }: { params: Promise<{ tool: string }> }): Promise<Metadata> {
  const tool = toolFromParam((await params).tool);
  return { title: tool ? `Edit ${tool}` : "Edit contract" };
}

export default async function EditContractPage({ params }: { params: Promise<{ tool: string }> }) {
  const user = await requirePageUser("viewer");
  const tool = toolFromParam((await params).tool);
  if (!tool) notFound();
  // A 403 with app/forbidden.tsx's explanation; nothing has been sent yet, so the status is a real one.
  if (!hasRole(user.role, "admin")) forbidden();
  const contract = await getContract(ledger(), tool).catch((error: unknown) => {
    if (error instanceof LedgerError && error.code === "not_found") return null;
    throw error;
  });
  if (!contract) notFound();
  const dependencies = await dependencyNames(ledger());
  return (
    <>
      <PageHeader
        title={`Edit ${tool}`}
        description={
          "Change the rules for operations planned from now on; operations already planned keep the version they " +
          "were planned under."
        }
        actions={
          <Link href={contractPath(tool)} className={linkClass}>
            Versions and history
          </Link>
        }
      />
      <ContractForm mode="edit" initial={contract} knownDependencies={dependencies} />
    </>
  );
}
