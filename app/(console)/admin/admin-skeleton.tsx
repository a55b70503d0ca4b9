// Shown while the admin page loads its lists (after the role check, so a 403 is a real one): the shape of its two
// tables, so nothing jumps when the lists arrive.
import { Skeleton } from "@/components/ui/skeleton";

function TableSkeleton({ rows, columns }: { rows: number; columns: number }) {
  return (
    <div className="overflow-hidden rounded-lg border border-line">
      <div className="flex gap-6 border-b border-line bg-surface-muted px-3 py-2.5">
        {Array.from({ length: columns }, (_, column) => (
          <Skeleton key={column} className="h-3 w-20" />
        ))}
      </div>
      {Array.from({ length: rows }, (_, row) => (
        <div key={row} className="flex items-center gap-6 border-b border-line px-3 py-2.5 last:border-b-0">
          <Skeleton className="h-4 w-44" />
          <Skeleton className="h-4 w-24" />
          <Skeleton className="h-5 w-16 rounded-sm" />
          <Skeleton className="h-5 w-16 rounded-full" />
          <Skeleton className="h-4 w-20" />
        </div>
      ))}
    </div>
  );
}

export function AdminSkeleton() {
  return (
    <div role="status" aria-live="polite" aria-busy="true">
      <span className="sr-only">Loading users and API keys…</span>
      <div className="mb-5 border-b border-line pb-4">
        <Skeleton className="h-6 w-24" />
        <Skeleton className="mt-2 h-4 w-[32rem] max-w-full" />
      </div>
      <Skeleton className="mb-3 h-5 w-16" />
      <TableSkeleton rows={4} columns={5} />
      <Skeleton className="mt-10 mb-3 h-5 w-20" />
      <TableSkeleton rows={3} columns={7} />
    </div>
  );
}
