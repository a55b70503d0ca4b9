"use client";
// The left navigation with its queue counts kept live: polled every 5 s, starting from the counts the server rendered.
import { useQuery } from "@tanstack/react-query";
import { consoleKeys, fetchCounts, keepPolling, LIVE_INTERVAL_MS } from "@/components/console-api";
import type { QueueCounts } from "@/lib/console/queue-counts";
import { Nav } from "./nav";

export function LiveNav({ initialCounts, isAdmin = false }: { initialCounts?: QueueCounts; isAdmin?: boolean }) {
  const { data } = useQuery({
    queryKey: consoleKeys.counts,
    queryFn: ({ signal }) => fetchCounts(signal),
    initialData: initialCounts,
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
    // Signed out (the sign-in page, an ended session) there is nothing to count.
    enabled: initialCounts !== undefined,
  });
  return <Nav unknownCount={data?.unknown} approvalCount={data?.awaitingApproval} isAdmin={isAdmin} />;
}
