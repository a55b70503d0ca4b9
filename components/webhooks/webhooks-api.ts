// The Webhooks page's reads: the list and one webhook's delivery log, with their React Query keys.
import { consoleGet } from "@/components/console-api";
import type { DeliveryView, WebhookView } from "@/lib/services/notify/webhook-schema";

export interface WebhooksResponse {
  items: WebhookView[];
  at: string;
}

export interface DeliveriesResponse {
  items: DeliveryView[];
  at: string;
}

export const webhooksKey = ["console", "webhooks"] as const;
export const deliveriesKey = (name: string) => ["console", "webhooks", name, "deliveries"] as const;

export const fetchWebhooks = (signal?: AbortSignal) => consoleGet<WebhooksResponse>("/api/console/webhooks", signal);

export const fetchDeliveries = (name: string, signal?: AbortSignal) =>
  consoleGet<DeliveriesResponse>(`/api/console/webhooks/${encodeURIComponent(name)}/deliveries`, signal);

/** What each event tells, for the form's checkboxes. */
export const EVENT_HELP: Record<string, string> = {
  "operation.unknown": "An operation's outcome was lost: it must be reconciled.",
  "approval.requested": "An operation waits for a person's approval.",
  "approval.expired": "Nobody decided on an approval request in time.",
  "unknowns.aged": "An operation stayed Unknown longer than its contract allows (default 15 min).",
  "breaker.opened": "A dependency's breaker opened: its calls are held.",
  "breaker.closed": "A dependency's breaker closed again.",
  "bulk.finished": "A bulk action finished.",
  "retries.spike": "A tool's retries in five minutes jumped to five times the hour's average.",
  "tool.changed": "An MCP tool changed since it was classified: it is not called until an admin confirms it.",
};
