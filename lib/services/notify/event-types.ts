// The webhook events: what a person must act on, named as docs/operators.md#be-told-when-a-person-must-act names them,
// and which audit record is which.
import type { AuditEvent } from "@/lib/platform/generated/prisma/client";

export const WEBHOOK_EVENT_TYPES = [
  "operation.unknown",
  "approval.requested",
  "approval.expired",
  "unknowns.aged",
  "breaker.opened",
  "breaker.closed",
  "bulk.finished",
  "retries.spike",
  "run.allowance_exhausted",
  "tool.changed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** json: the Standard Webhooks event; slack: a Slack incoming webhook's { text }. */
export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** Sent by "Send test event" only; no webhook subscribes to it. */
export const TEST_EVENT_TYPE = "webhook.test";
export type DeliveredEventType = WebhookEventType | typeof TEST_EVENT_TYPE;

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** An operation moving into one of these phases is an event. */
const BY_PHASE: Readonly<Record<string, WebhookEventType>> = {
  UNKNOWN: "operation.unknown",
  AWAITING_APPROVAL: "approval.requested",
  EXPIRED: "approval.expired",
};

/** The event an audit record stands for, or null when nobody needs to be told. */
export function eventOfAudit(row: Pick<AuditEvent, "subjectType" | "action" | "toPhase">): WebhookEventType | null {
  if (row.subjectType === "operation") return row.toPhase ? (BY_PHASE[row.toPhase] ?? null) : null;
  if (row.subjectType === "dependency") {
    switch (row.action) {
      case "dependency.breaker_open":
      case "dependency.forced_open":
        return "breaker.opened";
      case "dependency.breaker_closed":
      case "dependency.forced_closed":
        return "breaker.closed";
      default:
        return null;
    }
  }
  if (row.subjectType === "bulk" && row.action === "bulk.finished") return "bulk.finished";
  if (row.subjectType === "run" && row.action === "run.allowance_exhausted") return "run.allowance_exhausted";
  // An MCP tool whose upstream describes it otherwise than when it was classified: not called until an admin confirms.
  if (row.subjectType === "contract" && row.action === "contract.tool_changed") return "tool.changed";
  return null;
}
