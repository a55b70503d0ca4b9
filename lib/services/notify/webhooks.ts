// Webhooks, kept by an admin: create or change (naming the version seen), delete, send a test event, and read them and
// their delivery log. Every change is audited in its transaction (subjectType "webhook").
import type { Webhook, WebhookDelivery } from "@/lib/platform/generated/prisma/client";
import type { Actor } from "@/lib/ledger/actor";
import { actorLabel } from "@/lib/ledger/actor";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { newId } from "@/lib/ledger/ids";
import type { Ledger } from "@/lib/ledger/ledger";
import type { OutboundOptions } from "@/lib/services/outbound/send";
import { ensureNotificationCursor } from "./audit-cursor";
import { consoleUrl } from "./console-url";
import type { WebhookEvent } from "./event-payload";
import { TEST_EVENT_TYPE, type WebhookFormat } from "./event-types";
import { webhookErrors } from "./webhook-checks";
import { LedgerError } from "@/lib/ledger/errors";
import type { DeliveryStatus, DeliveryView, WebhookBody, WebhookChange, WebhookView } from "./webhook-schema";

export function webhookView(row: Webhook): WebhookView {
  return {
    name: row.name,
    url: row.url,
    events: row.events.split(",").filter(Boolean),
    secret: row.secret,
    format: row.format as WebhookFormat,
    version: row.version,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function deliveryView(row: WebhookDelivery): DeliveryView {
  return {
    id: row.id,
    webhook: row.webhook,
    eventType: row.eventType,
    eventKey: row.eventKey,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.status === "pending" ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  };
}

function notFound(name: string): LedgerError {
  return new LedgerError("not_found", `There is no webhook ${name}.`);
}

export async function listWebhooks(ledger: Ledger): Promise<WebhookView[]> {
  const rows = await ledger.db.webhook.findMany({ orderBy: { name: "asc" } });
  return rows.map(webhookView);
}

export async function getWebhook(ledger: Ledger, name: string): Promise<WebhookView> {
  const row = await ledger.db.webhook.findUnique({ where: { name } });
  if (!row) throw notFound(name);
  return webhookView(row);
}

export interface PutWebhookResult {
  webhook: WebhookView;
  created: boolean;
  changed: boolean;
}

const sameRules = (row: Webhook, body: { url: string; events: string[]; secret: string; format: string }): boolean =>
  row.url === body.url &&
  row.events === body.events.join(",") &&
  row.secret === body.secret &&
  row.format === body.format;

/**
 * Creates a webhook, or changes one at the version its editor saw (an update without `expectedVersion`, or with an
 * older one, is a conflict: never last writer wins). The same rules again change nothing.
 */
export async function putWebhook(
  ledger: Ledger,
  name: string,
  body: WebhookBody,
  actor: Actor,
  now: Date,
  options: OutboundOptions = {},
): Promise<PutWebhookResult> {
  const errors = await webhookErrors(body, options);
  if (Object.keys(errors).length > 0) {
    throw new LedgerError("invalid_webhook", "The webhook was not saved: fix the fields named.", { errors });
  }
  const rules = {
    url: body.url,
    events: [...new Set(body.events)].sort(),
    secret: body.secret,
    format: body.format ?? "json",
  };
  return auditedTransaction(ledger, async (tx, audit) => {
    const existing = await tx.webhook.findUnique({ where: { name } });
    if (existing) {
      if (body.expectedVersion !== existing.version) {
        throw new LedgerError(
          "webhook_conflict",
          body.expectedVersion === undefined
            ? `Webhook ${name} exists at version ${existing.version}; name the version you are changing (expectedVersion).`
            : `Webhook ${name} was changed to version ${existing.version} since you opened version ` +
                `${body.expectedVersion}; reload it and apply your change again.`,
        );
      }
      if (sameRules(existing, rules)) return { webhook: webhookView(existing), created: false, changed: false };
      const moved = await tx.webhook.updateMany({
        where: { name, version: existing.version },
        data: { ...rules, events: rules.events.join(","), version: existing.version + 1, updatedAt: now },
      });
      if (moved.count !== 1) throw new LedgerError("webhook_conflict", `Webhook ${name} changed during the save.`);
      audit([
        {
          subjectType: "webhook",
          subjectId: name,
          actor,
          action: "webhook.updated",
          reason: body.reason || null,
          data: {
            version: existing.version + 1,
            url: rules.url,
            events: rules.events,
            secret: rules.secret,
            format: rules.format,
          },
          at: now,
        },
      ]);
      const row = await tx.webhook.findUniqueOrThrow({ where: { name } });
      return { webhook: webhookView(row), created: false, changed: true };
    }
    if (body.expectedVersion !== undefined && body.expectedVersion !== 0) {
      throw new LedgerError(
        "webhook_conflict",
        `Webhook ${name} no longer exists; it was deleted since you opened it.`,
      );
    }
    await ensureNotificationCursor(tx);
    const row = await tx.webhook.create({
      data: {
        name,
        ...rules,
        events: rules.events.join(","),
        version: 1,
        createdBy: actorLabel(actor),
        createdAt: now,
        updatedAt: now,
      },
    });
    audit([
      {
        subjectType: "webhook",
        subjectId: name,
        actor,
        action: "webhook.created",
        reason: body.reason || null,
        data: { version: 1, url: rules.url, events: rules.events, secret: rules.secret, format: rules.format },
        at: now,
      },
    ]);
    return { webhook: webhookView(row), created: true, changed: true };
  });
}

/** Deletes a webhook and its pending deliveries (nothing more will be sent to it); the log of sent ones stays. */
export async function deleteWebhook(
  ledger: Ledger,
  name: string,
  change: WebhookChange,
  actor: Actor,
  now: Date,
): Promise<void> {
  const { expectedVersion } = change;
  await auditedTransaction(ledger, async (tx, audit) => {
    const existing = await tx.webhook.findUnique({ where: { name } });
    if (!existing) throw notFound(name);
    const gone = await tx.webhook.deleteMany({
      where: { name, ...(expectedVersion === undefined ? {} : { version: expectedVersion }) },
    });
    if (gone.count !== 1) {
      throw new LedgerError(
        "webhook_conflict",
        `Webhook ${name} was changed to version ${existing.version} since you opened version ${expectedVersion}; nothing was deleted.`,
      );
    }
    await tx.webhookDelivery.updateMany({
      where: { webhook: name, status: "pending" },
      data: {
        status: "failed",
        lastError: "the webhook was deleted",
        nextAttemptAt: null,
        leaseOwner: null,
        leaseExpiresAt: null,
      },
    });
    audit([
      {
        subjectType: "webhook",
        subjectId: name,
        actor,
        action: "webhook.deleted",
        reason: change.reason || null,
        data: { version: existing.version },
        at: now,
      },
    ]);
  });
}

/** Queues a test event for one webhook, delivered (signed, retried) like any other. */
export async function sendTestEvent(
  ledger: Ledger,
  name: string,
  actor: Actor,
  now: Date,
  reason?: string,
): Promise<DeliveryView> {
  return auditedTransaction(ledger, async (tx, audit) => {
    const webhook = await tx.webhook.findUnique({ where: { name } });
    if (!webhook) throw notFound(name);
    const id = newId();
    const event: WebhookEvent = {
      type: TEST_EVENT_TYPE,
      timestamp: now.toISOString(),
      data: { webhook: name, requestedBy: actorLabel(actor), url: consoleUrl("/webhooks") },
    };
    const row = await tx.webhookDelivery.create({
      data: {
        id,
        webhook: name,
        eventType: TEST_EVENT_TYPE,
        eventKey: `test:${id}`,
        payloadJson: JSON.stringify(event),
        status: "pending",
        nextAttemptAt: now,
        createdAt: now,
      },
    });
    audit([
      {
        subjectType: "webhook",
        subjectId: name,
        actor,
        action: "webhook.test_sent",
        reason: reason || null,
        data: { deliveryId: id },
        at: now,
      },
    ]);
    return deliveryView(row);
  });
}

export const DELIVERY_PAGE = 50;

/** The delivery log of one webhook, newest first. */
export async function listDeliveries(ledger: Ledger, name: string, limit = DELIVERY_PAGE): Promise<DeliveryView[]> {
  const exists = await ledger.db.webhook.findUnique({ where: { name }, select: { name: true } });
  if (!exists) throw notFound(name);
  const rows = await ledger.db.webhookDelivery.findMany({
    where: { webhook: name },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(Math.max(1, limit), 200),
  });
  return rows.map(deliveryView);
}
