// The webhook handlers' refusals as problem documents: a bad name is 400, a refused field 422 naming it, an edit
// against a version no longer current 409.
import { problem, titleFor } from "@/lib/api/problem";
import { LedgerError } from "@/lib/ledger/errors";
import { WebhookError } from "@/lib/notify/webhook-error";
import { WEBHOOK_NAME } from "@/lib/notify/webhook-schema";

/** Next has already decoded the path segment. */
export function webhookName(name: string): string {
  if (!WEBHOOK_NAME.test(name)) {
    throw new LedgerError(
      "invalid_body",
      "A webhook name is 1–64 letters, digits and . _ - (starting with a letter or digit).",
    );
  }
  return name;
}

/** Runs a handler, answering a WebhookError with its problem document; anything else goes on to apiRoute. */
export async function webhookAnswer(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof WebhookError)) throw error;
    return problem({
      status: error.status,
      code: error.code,
      title: titleFor(error.status),
      detail: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
    });
  }
}
