// Search page: the operations the top bar's search text names, newest first; an exact operation id opens that
// operation.
import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageUser } from "@/lib/platform/auth/session";
import { SearchResults } from "./search-results";

export const metadata: Metadata = { title: "Search" };

export default async function SearchPage({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  await requirePageUser("viewer");
  const raw = (await searchParams).q;
  const q = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? "";
  return (
    <>
      <PageHeader
        title="Search"
        description={
          "Operations whose id, idempotency key, provider id or run id is exactly this text, or whose arguments " +
          "hold it as a value. Exact match, case-sensitive, newest first."
        }
      />
      <SearchResults key={q} q={q} />
    </>
  );
}
