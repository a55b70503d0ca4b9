// The body of PUT /api/v1/webhooks/{name} and of the console's form, and the webhook as the API shows it.
import { z } from "zod";
import { WEBHOOK_FORMATS, type WebhookFormat } from "./event-types";

export const WEBHOOK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const webhookNameSchema = z
  .string()
  .regex(WEBHOOK_NAME, "1–64 letters, digits and . _ - (starting with a letter or digit)");

/** Shape only; the URL's address and the secret's value are checked by putWebhook (422 when refused). */
export const webhookBodySchema = z
  .object({
    url: z.string().trim().min(1, "required").max(2000),
    events: z.array(z.string().max(100)).min(1, "name at least one event").max(20),
    secret: z.string().trim().min(1, "required").max(200),
    format: z.enum(WEBHOOK_FORMATS).optional(),
    /** The version the editor saw; required to change an existing webhook. */
    expectedVersion: z.int().min(0).optional(),
    /** Why, kept in the audit trail. */
    reason: z.string().trim().max(500).optional(),
  })
  .strict();

export type WebhookBody = z.infer<typeof webhookBodySchema>;

/** DELETE's and the test event's optional body. */
export const webhookChangeSchema = z
  .object({ expectedVersion: z.int().min(0).optional(), reason: z.string().trim().max(500).optional() })
  .strict();
export type WebhookChange = z.infer<typeof webhookChangeSchema>;

export interface WebhookView {
  name: string;
  url: string;
  events: string[];
  /** The name of the OPLEDGER_SECRET_ variable; its value is never shown. */
  secret: string;
  format: WebhookFormat;
  version: number;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface DeliveryView {
  id: string;
  webhook: string;
  eventType: string;
  eventKey: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}
