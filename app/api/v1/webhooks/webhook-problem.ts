// The webhook routes' name check: a bad name is a 400 problem (the ledger's own refusals are mapped by apiRoute).
import { LedgerError } from "@/lib/ledger/errors";
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
