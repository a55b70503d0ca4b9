// Unknowns page: operations whose outcome was lost after dispatch, longest waiting first.
import type { Metadata } from "next";
import { OperationQueue } from "@/components/operations/operation-queue";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser } from "@/lib/platform/auth/session";

export const metadata: Metadata = { title: "Unknowns" };

export default async function UnknownsPage() {
  const user = await requirePageUser("viewer");
  return (
    <>
      <PageHeader
        title="Unknowns"
        description={
          "Operations whose outcome was lost after they were dispatched, longest waiting first. Look each one up " +
          "before anything is retried."
        }
      />
      <OperationQueue kind="unknowns" canAct={hasRole(user.role, "operator")} />
    </>
  );
}
