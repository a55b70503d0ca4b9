"use client";
// The admin's Webhooks page: every webhook with its events and delivery log, refreshed every few seconds; create, edit,
// send a test event and delete, each confirmed with a reason and audited.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConsoleApiError, keepPolling, LIVE_INTERVAL_MS } from "@/components/console-api";
import { EmptyState } from "@/components/ui/empty-state";
import { Notice } from "@/components/ui/form-controls";
import { RelativeTime } from "@/components/ui/relative-time";
import { DeliveryLog } from "./delivery-log";
import { WebhookChangeButton } from "./webhook-change-dialog";
import { WebhookFormButton } from "./webhook-form-dialog";
import { fetchWebhooks, webhooksKey, type WebhooksResponse } from "./webhooks-api";

export function WebhooksBoard({ initial }: { initial: WebhooksResponse }) {
  const queryClient = useQueryClient();
  const [announcement, setAnnouncement] = useState("");
  const query = useQuery({
    queryKey: webhooksKey,
    queryFn: ({ signal }) => fetchWebhooks(signal),
    initialData: initial,
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
  });
  const data = query.data;

  function done(message: string) {
    setAnnouncement(message);
    void queryClient.invalidateQueries({ queryKey: webhooksKey });
  }

  return (
    <div className="flex flex-col gap-4">
      <div className="flex justify-end">
        <WebhookFormButton webhook={null} onDone={done} />
      </div>
      <div aria-live="polite" className={announcement ? "" : "sr-only"}>
        {announcement ? <Notice tone="success">{announcement}</Notice> : null}
      </div>
      {query.isError ? (
        <Notice tone="error" title="Could not refresh the webhooks" alert>
          {query.error instanceof ConsoleApiError ? query.error.message : "The console server did not answer."} The list
          below is from <RelativeTime value={data.at} />.
        </Notice>
      ) : null}
      {data.items.length === 0 ? (
        <EmptyState title="No webhooks yet.">
          A webhook tells a person when something waits for them: an operation whose outcome was lost, an approval
          request, a breaker that opened. Create one for your pager or a Slack channel.
        </EmptyState>
      ) : (
        data.items.map((webhook) => (
          <section
            key={webhook.name}
            aria-labelledby={`webhook-${webhook.name}`}
            data-webhook={webhook.name}
            className="rounded-lg border border-line p-4"
          >
            <div className="flex flex-wrap items-start justify-between gap-3">
              <div className="min-w-0">
                <h2 id={`webhook-${webhook.name}`} className="font-mono text-sm font-semibold text-ink">
                  {webhook.name}
                </h2>
                <p className="font-mono text-[12.5px] break-all text-ink-muted">{webhook.url}</p>
                <p className="mt-1 text-xs text-ink-subtle">
                  {webhook.format === "slack" ? "Slack message" : "Standard Webhooks JSON"} · signed with{" "}
                  <span className="font-mono">{webhook.secret}</span> · version {webhook.version} · by{" "}
                  {webhook.createdBy}
                </p>
                <ul className="mt-2 flex flex-wrap gap-1.5" aria-label="Events">
                  {webhook.events.map((e) => (
                    <li
                      key={e}
                      className="rounded bg-surface-muted px-1.5 py-0.5 font-mono text-[11.5px] text-ink-muted"
                    >
                      {e}
                    </li>
                  ))}
                </ul>
              </div>
              <div className="flex flex-wrap gap-2">
                <WebhookChangeButton webhook={webhook} change="test" onDone={done} />
                <WebhookFormButton webhook={webhook} onDone={done} />
                <WebhookChangeButton webhook={webhook} change="delete" onDone={done} />
              </div>
            </div>
            <h3 className="mt-4 mb-2 text-xs font-medium text-ink-muted">Delivery log</h3>
            <DeliveryLog name={webhook.name} />
          </section>
        ))
      )}
    </div>
  );
}
