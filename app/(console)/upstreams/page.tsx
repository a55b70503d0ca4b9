// Upstreams page: the MCP servers behind the gateway, their state, and their tools as they describe them (hints
// untrusted), each with whether a contract exists; admins classify the tools that have none.
import type { Metadata } from "next";
import { Suspense } from "react";
import { UpstreamNotices } from "@/components/upstreams/upstream-notices";
import { UpstreamSection } from "@/components/upstreams/upstream-section";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser, type SessionUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { listContracts } from "@/lib/ledger/contracts/contract-versions";
import { upstreams } from "@/lib/services/upstreams/upstreams";
import { upstreamsView } from "@/lib/console/upstreams-view";
import { PageSkeleton } from "../page-skeleton";

export const metadata: Metadata = { title: "Upstreams" };

/** How long the page waits for upstreams not yet started to list their tools; slower ones show as starting. */
const START_WAIT_MS = 5000;

export default async function UpstreamsPage() {
  // Before anything is sent, so a missing session is a real redirect; the upstreams may stream.
  const user = await requirePageUser("viewer");
  return (
    <Suspense fallback={<PageSkeleton />}>
      <UpstreamsContent user={user} />
    </Suspense>
  );
}

async function UpstreamsContent({ user }: { user: SessionUser }) {
  const canClassify = hasRole(user.role, "admin");
  const contracts = await listContracts(ledger());
  const versions = new Map(contracts.map((c) => [c.tool, c.version]));
  const items = await upstreamsView(upstreams(), ledger(), versions, START_WAIT_MS);

  return (
    <>
      <PageHeader
        title="Upstreams"
        description="The MCP servers behind the gateway, and which of their tools have a contract."
      />
      {items.length === 0 ? (
        <EmptyState title="No upstreams are configured.">
          Name a JSON file of MCP servers in <code className="font-mono">OPLEDGER_MCP_UPSTREAMS</code> and restart; each
          one’s tools then appear here, and the gateway lists those that have a contract. The file’s format is in{" "}
          <a href="https://github.com/opledger/opledger/blob/main/docs/mcp.md" className="underline underline-offset-4">
            docs/mcp.md
          </a>
          .
        </EmptyState>
      ) : (
        <UpstreamNotices>
          {items.map((upstream) => (
            <UpstreamSection key={upstream.name} upstream={upstream} canClassify={canClassify} />
          ))}
          <p className="mt-3 max-w-prose text-xs leading-relaxed text-ink-subtle">
            Hints are the upstream’s own description of its tools; MCP says not to trust them, so the gateway goes by
            the contract alone. A tool without a contract is not listed to agents and its calls are refused.
            {canClassify ? null : " Classifying a tool needs the admin role."}
          </p>
        </UpstreamNotices>
      )}
    </>
  );
}
