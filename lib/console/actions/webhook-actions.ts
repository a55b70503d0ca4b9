"use server";
// The Webhooks page's server actions (admin role, checked inside each call): save, delete and send a test event, each
// with the version seen and a reason, each audited by lib/services/notify.
import { z } from "zod";
import { revalidatePath } from "next/cache";
import { LedgerError } from "@/lib/ledger/errors";
import { deleteWebhook, putWebhook, sendTestEvent } from "@/lib/services/notify/webhooks";
import { webhookBodySchema, webhookNameSchema } from "@/lib/services/notify/webhook-schema";
import { consoleAction } from "./console-action";

/** A webhook refusal as the form shows it: field messages for a refused field, a conflict banner for a stale edit. */
async function inFormTerms<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    if (error.code === "invalid_webhook") throw new LedgerError("invalid_body", error.message, error.extra);
    if (error.code === "webhook_conflict") throw new LedgerError("write_conflict", error.message);
    throw error;
  }
}

const saveSchema = webhookBodySchema.extend({ name: webhookNameSchema });

export const saveWebhookAction = consoleAction("admin", saveSchema, async ({ name, ...body }, ctx) => {
  const result = await inFormTerms(() => putWebhook(ctx.ledger, name, body, ctx.actor, ctx.now));
  revalidatePath("/webhooks");
  return result;
});

const changeSchema = z
  .object({
    name: webhookNameSchema,
    expectedVersion: z.int().min(0),
    reason: z.string().trim().min(1, "Give a reason: it is kept in the audit trail.").max(500),
  })
  .strict();

export const deleteWebhookAction = consoleAction(
  "admin",
  changeSchema,
  async ({ name, expectedVersion, reason }, ctx) => {
    await inFormTerms(() => deleteWebhook(ctx.ledger, name, { expectedVersion, reason }, ctx.actor, ctx.now));
    revalidatePath("/webhooks");
    return { name };
  },
);

const testSchema = z
  .object({
    name: webhookNameSchema,
    reason: z.string().trim().min(1, "Give a reason: it is kept in the audit trail.").max(500),
  })
  .strict();

export const sendTestEventAction = consoleAction("admin", testSchema, ({ name, reason }, ctx) =>
  inFormTerms(() => sendTestEvent(ctx.ledger, name, ctx.actor, ctx.now, reason)),
);
