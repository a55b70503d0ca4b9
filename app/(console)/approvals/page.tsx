// Approvals page: operations that wait for a person to approve or reject the next attempt, soonest to expire first.
import type { Metadata } from "next";
import { OperationQueue } from "@/components/operations/operation-queue";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser } from "@/lib/platform/auth/session";

export const metadata: Metadata = { title: "Approvals" };

export default async function ApprovalsPage() {
  const user = await requirePageUser("viewer");
  return (
    <>
      <PageHeader
        title="Approvals"
        description={
          "Operations that may only be retried once a person approves, soonest to expire first. Open one to " +
          "approve or reject it with a reason."
        }
      />
      <OperationQueue kind="approvals" canAct={hasRole(user.role, "operator")} />
    </>
  );
}
