// Shown while a console page loads its data: the shape of a page header and a table, so nothing jumps when it arrives.
// A Suspense fallback inside the page, after its access checks, not a loading.tsx: a loading.tsx would start the
// response (status 200) before the page could answer a redirect, a 403 or a 404.
import { Skeleton } from "@/components/ui/skeleton";

const ROWS = 8;

export function PageSkeleton() {
  return (
    <div role="status" aria-live="polite" aria-busy="true">
      <span className="sr-only">Loading this page…</span>
      <div className="mb-5 border-b border-line pb-4">
        <Skeleton className="h-6 w-40" />
        <Skeleton className="mt-2 h-4 w-96 max-w-full" />
      </div>
      <div className="overflow-hidden rounded-lg border border-line">
        <div className="flex gap-6 border-b border-line bg-surface-muted px-3 py-2.5">
          <Skeleton className="h-3 w-24" />
          <Skeleton className="h-3 w-20" />
          <Skeleton className="h-3 w-32" />
          <Skeleton className="h-3 w-16" />
        </div>
        {Array.from({ length: ROWS }, (_, row) => (
          <div key={row} className="flex items-center gap-6 border-b border-line px-3 py-2.5 last:border-b-0">
            <Skeleton className="h-4 w-24" />
            <Skeleton className="h-5 w-20 rounded-full" />
            <Skeleton className="h-4 w-32" />
            <Skeleton className="h-4 w-16" />
          </div>
        ))}
      </div>
    </div>
  );
}
