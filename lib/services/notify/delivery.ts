// Sends due deliveries: leased one by one with a conditional update (two instances never send one at the same time),
// signed as Standard Webhooks (webhook-id is the delivery's id, the same on every retry), sent through the outbound
// module, and retried or given up as the retry gate decides. At least once: a sender that dies leaves its lease to run
// out, and the delivery is sent again.
import { Webhook as Signer } from "standardwebhooks";
import type { Webhook, WebhookDelivery } from "@/lib/platform/generated/prisma/client";
import { newId } from "@/lib/ledger/ids";
import type { Ledger } from "@/lib/ledger/ledger";
import { grantSecret } from "@/lib/services/outbound/secrets";
import { sendOutbound, type OutboundOptions } from "@/lib/services/outbound/send";
import type { OutboundResult } from "@/lib/services/outbound/refusal";
import { afterFailedDelivery, DEFAULT_DELIVERY_POLICY, reportedError, type DeliveryPolicy } from "./delivery-gate";
import { renderBody, type WebhookEvent } from "./event-payload";
import type { WebhookFormat } from "./event-types";
import { SpanStatusCode } from "@opentelemetry/api";
import { HTTP, LEDGER } from "@/lib/platform/telemetry/attributes";
import { rootSpan, touchedOperation } from "@/lib/platform/telemetry/root-span";

export interface DeliveryOptions {
  outbound?: OutboundOptions;
  policy?: DeliveryPolicy;
  /** Per request (DNS, connect, answer). */
  timeoutMs?: number;
  /** Deliveries leased per pass. */
  limit?: number;
  /** This sender's name in leases. */
  owner?: string;
  random?: () => number;
}

export const DELIVERY_TIMEOUT_MS = 10_000;
/** What an answer keeps of the receiver's body in lastError. */
const ERROR_CHARS = 500;

function cut(text: string): string {
  return text.length > ERROR_CHARS ? `${text.slice(0, ERROR_CHARS)}…` : text;
}

/** Takes the delivery if it is still due and nobody else holds it. */
async function lease(ledger: Ledger, d: WebhookDelivery, owner: string, now: Date, leaseMs: number): Promise<boolean> {
  const taken = await ledger.db.webhookDelivery.updateMany({
    where: {
      id: d.id,
      status: "pending",
      attempts: d.attempts,
      OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lte: now } }],
    },
    data: { leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + leaseMs) },
  });
  return taken.count === 1;
}

/** The secret is not set in this process: not an attempt; another instance (or this one, once it is set) sends it. */
interface Deferred {
  deferred: string;
}

/** How soon a delivery this instance could not sign is offered again. */
export const DEFER_MS = 5_000;

/** Sends one leased delivery; never throws for the receiver's sake. */
async function send(
  webhook: Webhook,
  d: WebhookDelivery,
  now: Date,
  options: DeliveryOptions,
): Promise<OutboundResult | Deferred> {
  let url: URL;
  try {
    url = new URL(webhook.url);
  } catch {
    return { outcome: "refused", rule: "url", reason: `${webhook.url} is not an absolute URL; nothing was sent.` };
  }
  const grant = grantSecret(webhook.secret, url, options.outbound?.environment ?? process.env);
  if (!("granted" in grant)) return grant.rule === "secret_missing" ? { deferred: grant.reason } : grant;
  const event = JSON.parse(d.payloadJson) as WebhookEvent;
  const body = renderBody(webhook.format as WebhookFormat, event);
  let signature: string;
  try {
    signature = new Signer(grant.value).sign(d.id, now, body);
  } catch {
    return {
      outcome: "refused",
      rule: "secret_name",
      reason: `${webhook.secret} does not hold a usable whsec_ secret.`,
    };
  }
  return sendOutbound(
    {
      url: webhook.url,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": d.id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      maxBytes: 4096,
    },
    options.outbound,
  );
}

/** The HTTP status the receiver answered with, if it answered. */
function answeredStatus(result: OutboundResult): number | null {
  if (result.outcome === "answered") return result.status;
  return result.outcome === "refused" ? (result.status ?? null) : null;
}

async function finish(
  ledger: Ledger,
  d: WebhookDelivery,
  owner: string,
  result: OutboundResult,
  now: Date,
  options: DeliveryOptions,
): Promise<WebhookDelivery["status"]> {
  const attempts = d.attempts + 1;
  const lastStatus = answeredStatus(result);
  const reported = reportedError(result);
  let data: Partial<WebhookDelivery>;
  if (!reported) {
    data = { status: "delivered", deliveredAt: now, nextAttemptAt: null, lastError: null };
  } else {
    const detail = result.outcome === "answered" ? `answered ${result.status}: ${result.body}` : result.reason;
    const step = afterFailedDelivery(
      reported,
      attempts,
      d.createdAt,
      now,
      options.policy ?? DEFAULT_DELIVERY_POLICY,
      options.random ?? Math.random,
    );
    data =
      "retryAt" in step
        ? { status: "pending", nextAttemptAt: step.retryAt, lastError: cut(detail) }
        : { status: "failed", nextAttemptAt: null, lastError: cut(`${detail} (given up: ${step.giveUp})`) };
  }
  const written = await ledger.db.webhookDelivery.updateMany({
    where: { id: d.id, leaseOwner: owner, attempts: d.attempts },
    data: { ...data, attempts, lastStatus, leaseOwner: null, leaseExpiresAt: null },
  });
  return written.count === 1 ? (data.status ?? "pending") : "lost";
}

/**
 * Sends one leased delivery and writes what came of it, inside the root span `opledger webhook {event type}`: the
 * webhook, the delivery (its webhook-id), the event, the attempt, the receiver's HTTP status and the outcome; an
 * operation's event names the operation and the trace it was planned in. Answers the status written ("delivered",
 * "pending", "failed"), "lost" (another sender took it over) or "deferred".
 */
function deliverLeased(
  ledger: Ledger,
  d: WebhookDelivery,
  owner: string,
  sentAt: Date,
  now: () => Date,
  options: DeliveryOptions,
): Promise<string> {
  const event = JSON.parse(d.payloadJson) as WebhookEvent;
  const attributes = {
    [LEDGER.webhook]: d.webhook,
    [LEDGER.webhookDeliveryId]: d.id,
    [LEDGER.webhookEvent]: event.type,
    [LEDGER.webhookAttempt]: d.attempts + 1,
    ...(typeof event.data.traceId === "string" ? { [LEDGER.operationTraceId]: event.data.traceId } : {}),
  };
  return rootSpan(`opledger webhook ${event.type}`, attributes, async (span) => {
    if (event.type.startsWith("operation.") && typeof event.data.id === "string") touchedOperation(event.data.id);
    const webhook = await ledger.db.webhook.findUnique({ where: { name: d.webhook } });
    const result: OutboundResult | Deferred = webhook
      ? await send(webhook, d, sentAt, options)
      : { outcome: "refused", rule: "url", reason: `webhook ${d.webhook} was deleted; nothing was sent.` };
    if ("deferred" in result) {
      await ledger.db.webhookDelivery.updateMany({
        where: { id: d.id, leaseOwner: owner, attempts: d.attempts },
        data: {
          leaseOwner: null,
          leaseExpiresAt: null,
          nextAttemptAt: new Date(now().getTime() + DEFER_MS),
          lastError: `not sent by this server: ${result.deferred}`,
        },
      });
      span.setAttribute(LEDGER.webhookOutcome, "deferred");
      return "deferred";
    }
    const status = await finish(ledger, d, owner, result, now(), options);
    const httpStatus = answeredStatus(result);
    if (httpStatus !== null) span.setAttribute(HTTP.responseStatusCode, httpStatus);
    span.setAttribute(LEDGER.webhookOutcome, status);
    if (status === "failed" || status === "pending") span.setStatus({ code: SpanStatusCode.ERROR });
    return status;
  });
}

export interface DeliveryReport {
  delivered: number;
  retrying: number;
  failed: number;
}

/** One pass: every due pending delivery (up to `limit`), each sent by whoever leases it first. */
export async function deliverDue(
  ledger: Ledger,
  now: () => Date,
  options: DeliveryOptions = {},
): Promise<DeliveryReport> {
  const owner = options.owner ?? `notifier-${newId()}`;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const report: DeliveryReport = { delivered: 0, retrying: 0, failed: 0 };
  const at = now();
  const due = await ledger.db.webhookDelivery.findMany({
    where: {
      status: "pending",
      nextAttemptAt: { lte: at },
      OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lte: at } }],
    },
    orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }],
    take: options.limit ?? 50,
  });
  for (const d of due) {
    const sentAt = now();
    if (!(await lease(ledger, d, owner, sentAt, timeoutMs * 2 + 5_000))) continue;
    const status = await deliverLeased(ledger, d, owner, sentAt, now, options);
    if (status === "delivered") report.delivered += 1;
    else if (status === "failed") report.failed += 1;
    else if (status === "pending" || status === "deferred") report.retrying += 1;
  }
  return report;
}
