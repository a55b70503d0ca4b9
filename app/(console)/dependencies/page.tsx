// Dependencies page: the circuit breaker of every provider the tools call, and the operator's manual override of it.
import type { Metadata } from "next";
import { Suspense } from "react";
import { DependenciesBoard } from "@/components/dependencies/dependencies-board";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser, type SessionUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { listDependencies } from "@/lib/ledger/dependencies/dependencies";
import { PageSkeleton } from "../page-skeleton";

export const metadata: Metadata = { title: "Dependencies" };

export default async function DependenciesPage() {
  // Before anything is sent, so a missing session is a real redirect; the breakers may stream.
  const user = await requirePageUser("viewer");
  return (
    <Suspense fallback={<PageSkeleton />}>
      <DependenciesContent user={user} />
    </Suspense>
  );
}

async function DependenciesContent({ user }: { user: SessionUser }) {
  const now = new Date();
  const items = await listDependencies(ledger(), now);
  const canAct = hasRole(user.role, "operator");
  const canEdit = hasRole(user.role, "admin");

  return (
    <>
      <PageHeader
        title="Dependencies"
        description="The providers your tools call, and whether their circuit breakers let calls through."
      />
      {items.length === 0 ? (
        <EmptyState title="No dependencies are being tracked.">
          A dependency appears here once a tool contract names it. While its breaker is open, calls fail fast with an
          “unavailable” decision instead of spending their retry budget; you can open or close a breaker by hand, with a
          reason.
        </EmptyState>
      ) : (
        <>
          <DependenciesBoard initial={{ items, at: now.toISOString() }} canAct={canAct} canEdit={canEdit} />
          <p className="mt-3 max-w-prose text-xs leading-relaxed text-ink-subtle">
            A breaker opens by itself after its threshold of consecutive failed or lost calls, lets one probe at a time
            through once its cooldown is over, and closes after its number of good probes in a row. Failures in the last
            hour count failed and unknown attempts of every operation planned under a contract version naming the
            dependency.
            {canAct
              ? " A forced state stays until someone returns the breaker to automatic."
              : " Forcing a breaker open or closed needs the operator role."}
            {canEdit
              ? " Each settings change is a new version, kept with who made it and why."
              : " Changing a breaker's threshold, cooldown or probes needs the admin role."}
          </p>
        </>
      )}
    </>
  );
}
