// Shown while the metrics load (after the session check, so a redirect is a real one): the shape of the window picker
// and the chart cards, so nothing jumps when data arrives.
import { Skeleton } from "@/components/ui/skeleton";

export function MetricsSkeleton() {
  return (
    <div role="status" aria-live="polite" aria-busy="true">
      <span className="sr-only">Loading the metrics…</span>
      <div className="mb-5 border-b border-line pb-4">
        <Skeleton className="h-6 w-28" />
        <Skeleton className="mt-2 h-4 w-96 max-w-full" />
      </div>
      <Skeleton className="mb-5 h-8 w-56 rounded-md" />
      <div className="grid gap-4 lg:grid-cols-2">
        {Array.from({ length: 4 }, (_, i) => (
          <div key={i} className="rounded-lg border border-line p-3">
            <Skeleton className="h-4 w-40" />
            <Skeleton className="mt-2 h-3 w-72 max-w-full" />
            <Skeleton className="mt-3 h-[150px] w-full" />
          </div>
        ))}
      </div>
    </div>
  );
}
