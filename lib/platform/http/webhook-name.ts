// A webhook's name from a path segment (already percent-decoded): a bad name is a 400 problem, before any read.
import { LedgerError } from "@/lib/ledger/errors";
import { WEBHOOK_NAME } from "@/lib/services/notify/webhook-schema";

export function webhookName(name: string): string {
  if (!WEBHOOK_NAME.test(name)) {
    throw new LedgerError(
      "invalid_body",
      "A webhook name is 1–64 letters, digits and . _ - (starting with a letter or digit).",
    );
  }
  return name;
}
