// New contract page: an admin writes the first version of a tool's contract, from scratch or, with ?classify=, from
// an upstream tool's hints.
import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { classifiedDraft } from "@/components/contracts/contract-draft";
import { ContractForm, type ContractFormProps } from "@/components/contracts/contract-form";
import { Notice } from "@/components/ui/form-controls";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser } from "@/lib/platform/auth/session";
import { dependencyNames } from "@/lib/ledger/dependencies/dependencies";
import { ledger } from "@/lib/ledger/ledger";
import { classifyDraft } from "./classify";

export const metadata: Metadata = { title: "New contract" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function NewContractPage({ searchParams }: Props) {
  const user = await requirePageUser("viewer");
  // A 403 with app/forbidden.tsx's explanation; nothing has been sent yet, so the status is a real one.
  if (!hasRole(user.role, "admin")) forbidden();
  const asked = (await searchParams).classify;
  const classify = Array.isArray(asked) ? asked[0] : asked;
  const [dependencies, hints] = await Promise.all([
    dependencyNames(ledger()),
    classify ? classifyDraft(classify) : Promise.resolve(null),
  ]);
  const classified: ContractFormProps["classified"] = hints
    ? { draft: classifiedDraft(hints), suggestion: { effect: hints.suggestedEffect, why: hints.why } }
    : undefined;
  return (
    <>
      <PageHeader
        title="New contract"
        description={
          "Say what kind of side effect the tool has and how its calls may be retried; dispatches for the tool " +
          "are accepted from then on."
        }
      />
      {classify !== undefined ? (
        <div className="mb-4 max-w-5xl">
          {hints ? (
            <Notice tone="info" title={`Drafted from the upstream's description of ${hints.tool}.`}>
              Its name, description and hints come from the upstream server itself and are not trusted: check them, pick
              the side-effect class yourself, then save.
            </Notice>
          ) : (
            <Notice tone="warning">
              No upstream lists a tool named &ldquo;{classify}&rdquo; right now, so this is an empty contract.
            </Notice>
          )}
        </div>
      ) : null}
      <ContractForm mode="create" initial={null} knownDependencies={dependencies} classified={classified} />
    </>
  );
}
