"use client";
// One webhook's delivery log, newest first and refreshed every few seconds: status, attempts, the last answer or error,
// and when the next try is due.
import { useQuery } from "@tanstack/react-query";
import { ConsoleApiError, keepPolling, LIVE_INTERVAL_MS } from "@/components/console-api";
import { MonoId } from "@/components/ui/mono-id";
import { Notice } from "@/components/ui/form-controls";
import { RelativeTime } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import { TableHeader } from "@/components/ui/table-header";
import { DeliveryStatusPill } from "./delivery-status";
import { deliveriesKey, fetchDeliveries } from "./webhooks-api";

const TD = "px-3 py-2 align-top";

export function DeliveryLog({ name }: { name: string }) {
  const query = useQuery({
    queryKey: deliveriesKey(name),
    queryFn: ({ signal }) => fetchDeliveries(name, signal),
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
  });
  if (query.isPending) {
    return (
      <div className="flex flex-col gap-2" aria-busy="true" aria-label={`Loading the delivery log of ${name}`}>
        <Skeleton className="h-6 w-full" />
        <Skeleton className="h-6 w-full" />
      </div>
    );
  }
  if (query.isError) {
    return (
      <Notice tone="error" title="Could not load the delivery log" alert>
        {query.error instanceof ConsoleApiError ? query.error.message : "The console server did not answer."}
      </Notice>
    );
  }
  const items = query.data.items;
  if (items.length === 0) {
    return (
      <p className="text-sm text-ink-subtle" data-testid="delivery-log-empty">
        Nothing sent yet. Events this webhook asked for appear here as they happen; “Send test event” sends one now.
      </p>
    );
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table className="w-full border-collapse text-[13px]" data-testid={`delivery-log-${name}`}>
        <caption className="sr-only">Deliveries of webhook {name}, newest first</caption>
        <TableHeader
          columns={[
            "Event",
            "Status",
            { label: "Tries", align: "right", hint: "Attempts made so far" },
            "Last answer",
            "Next try",
            "Queued",
          ]}
        />
        <tbody>
          {items.map((d) => (
            <tr key={d.id} data-delivery={d.id} className="border-b border-line last:border-b-0">
              <td className={TD}>
                <span className="font-mono text-[12.5px] text-ink">{d.eventType}</span>
                <span className="block text-xs text-ink-subtle">
                  webhook-id <MonoId value={d.id} label="delivery id" />
                </span>
              </td>
              <td className={TD}>
                <DeliveryStatusPill status={d.status} />
              </td>
              <td className={`${TD} text-right tabular-nums`}>{d.attempts}</td>
              <td className={`${TD} max-w-md`}>
                {d.lastStatus !== null ? <span className="tabular-nums">HTTP {d.lastStatus}</span> : null}
                {d.lastError ? <span className="block text-xs break-words text-ink-muted">{d.lastError}</span> : null}
                {d.lastStatus === null && !d.lastError ? <span className="text-ink-subtle">—</span> : null}
              </td>
              <td className={`${TD} whitespace-nowrap`}>
                {d.nextAttemptAt ? (
                  <RelativeTime value={d.nextAttemptAt} live />
                ) : (
                  <span className="text-ink-subtle">—</span>
                )}
              </td>
              <td className={`${TD} whitespace-nowrap`}>
                <RelativeTime value={d.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
