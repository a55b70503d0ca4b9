// Audit page: every recorded transition and change, newest first, with who made it and why; filters live in the URL.
import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { AuditFilters } from "@/components/audit/audit-filters";
import { AUDIT_PAGE_SIZE, auditHref, hasFilters, parseAuditSearch } from "@/lib/console/audit-search";
import { AuditTable } from "@/components/audit/audit-table";
import { Notice } from "@/components/ui/form-controls";
import { buttonClass } from "@/components/ui/button-styles";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { AUDIT_SUBJECTS, KNOWN_AUDIT_ACTIONS, listAuditEvents } from "@/lib/ledger/reads/audit-log";
import { PageSkeleton } from "../page-skeleton";

export const metadata: Metadata = { title: "Audit" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function AuditPage({ searchParams }: Props) {
  // Before anything is sent, so a missing session is a real redirect; the records may stream.
  await requirePageUser("viewer");
  const query = await searchParams;
  return (
    <Suspense fallback={<PageSkeleton />}>
      <AuditContent query={query} />
    </Suspense>
  );
}

async function AuditContent({ query }: { query: Record<string, string | string[] | undefined> }) {
  const { search, filter, problems } = parseAuditSearch(query, new Date());
  const page = await listAuditEvents(ledger(), filter, {
    cursor: search.cursor,
    limit: search.limit ?? AUDIT_PAGE_SIZE,
  });
  const filtered = hasFilters(search);

  return (
    <>
      <PageHeader title="Audit" description="Who changed what, from which phase to which, and why — newest first." />
      <AuditFilters
        key={auditHref({ ...search, cursor: undefined })}
        search={search}
        subjects={AUDIT_SUBJECTS}
        actions={KNOWN_AUDIT_ACTIONS}
      />
      {problems.length > 0 ? (
        <div className="mb-4">
          <Notice tone="warning" title="Some filters could not be used">
            <ul className="list-disc pl-5">
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </Notice>
        </div>
      ) : null}

      {page.items.length === 0 ? (
        search.cursor ? (
          <EmptyState
            title="No older audit records."
            action={
              <Link href={auditHref({ ...search, cursor: undefined })} className={buttonClass("secondary")}>
                Back to the newest
              </Link>
            }
          >
            You have reached the first record written{filtered ? " that matches these filters" : ""}.
          </EmptyState>
        ) : filtered ? (
          <EmptyState
            title="No audit records match these filters."
            action={
              <Link href="/audit" className={buttonClass("secondary")}>
                Clear the filters
              </Link>
            }
          >
            Records appear here as operations move, contracts are saved, breakers are forced and people sign in. Check
            the spelling of the ids, or widen the time window; an action ending in <code className="font-mono">.*</code>{" "}
            matches every action that starts with it.
          </EmptyState>
        ) : (
          <EmptyState title="No audit records yet.">
            Every transition — a dispatch, a confirmation, an approval, a reconciliation, a contract edit, a forced
            breaker — writes an audit record in the same transaction, naming the user, API key or system that made it
            and the reason given.
          </EmptyState>
        )
      ) : (
        <>
          <AuditTable events={page.items} search={search} />
          <nav
            aria-label="Audit pages"
            className="mt-3 flex items-center justify-between gap-3 text-xs text-ink-subtle"
          >
            <span>
              {page.items.length} {page.items.length === 1 ? "record" : "records"}
              {search.cursor ? " (older page)" : ", newest first"}
            </span>
            <span className="flex gap-2">
              {search.cursor ? (
                <Link href={auditHref({ ...search, cursor: undefined })} className={buttonClass("secondary", "sm")}>
                  ← Newest
                </Link>
              ) : null}
              {page.nextCursor ? (
                <Link
                  href={auditHref({ ...search, cursor: page.nextCursor })}
                  className={buttonClass("secondary", "sm")}
                >
                  Older →
                </Link>
              ) : null}
            </span>
          </nav>
        </>
      )}
    </>
  );
}
