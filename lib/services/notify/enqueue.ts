// Queues events for the webhooks that asked for them: one delivery per webhook and event key, whatever runs twice.
import type { Prisma } from "@/lib/platform/generated/prisma/client";
import { newId } from "@/lib/ledger/ids";
import type { Ledger } from "@/lib/ledger/ledger";
import type { WebhookEvent } from "./event-payload";
import type { WebhookEventType } from "./event-types";

export interface QueuedEvent {
  /** Unique per webhook: "audit:<seq>", "aged:<operationId>", "spike:<tool>:<windowStart>". */
  key: string;
  event: WebhookEvent & { type: WebhookEventType };
}

/** Webhook names by the event types they subscribe to. */
export type Subscribers = Map<WebhookEventType, string[]>;

export async function subscribers(ledger: Ledger | { db: Pick<Ledger["db"], "webhook"> }): Promise<Subscribers> {
  const rows = await ledger.db.webhook.findMany({ select: { name: true, events: true } });
  const map: Subscribers = new Map();
  for (const row of rows) {
    for (const type of row.events.split(",")) {
      const names = map.get(type as WebhookEventType) ?? [];
      names.push(row.name);
      map.set(type as WebhookEventType, names);
    }
  }
  return map;
}

export function deliveryRows(
  queued: QueuedEvent[],
  subs: Subscribers,
  now: Date,
): Prisma.WebhookDeliveryCreateManyInput[] {
  return queued.flatMap(({ key, event }) =>
    (subs.get(event.type) ?? []).map((webhook) => ({
      id: newId(),
      webhook,
      eventType: event.type,
      eventKey: key,
      payloadJson: JSON.stringify(event),
      status: "pending",
      nextAttemptAt: now,
      createdAt: now,
    })),
  );
}
