"use server";
// Console action: run an operation's provider lookup for the Reconcile dialog and return the evidence; nothing is
// changed.
import { z } from "zod";
import { consoleAction } from "@/lib/console/actions/console-action";
import { lookupForOperation } from "@/lib/ledger/commands/auto-reconcile";
import { evidenceText, reconcileSuggestion, type LookupEvidence } from "@/lib/ledger/outbound/provider-lookup";

const lookupSchema = z.object({ id: z.string().trim().min(1).max(64) }).strict();

export type LookupInput = z.input<typeof lookupSchema>;

/** What the Reconcile dialog shows and fills in. */
export interface LookupResult {
  found: LookupEvidence;
  /** The same evidence as text, for the dialog's evidence field. */
  text: string;
  /** What the evidence proves, or null when it proves nothing either way. */
  suggestion: { outcome: "applied"; providerId: string | null } | { outcome: "not_applied" } | null;
}

/**
 * Operator role: the lookup is a read, but it calls the provider with the server's credentials, so a viewer may not
 * make the server do it. A lookup that fails comes back as evidence with `ok: false` and a reason, not as an error;
 * an unknown operation is `{ ok: false, code: "not_found" }` from the action wrapper. The person still decides, with
 * a reason, through the reconcile action.
 */
export const lookupOperationAction = consoleAction(
  "operator",
  lookupSchema,
  async (input, ctx): Promise<LookupResult> => {
    const found = await lookupForOperation(ctx.ledger, input.id, ctx.now);
    return { found, text: evidenceText(found), suggestion: reconcileSuggestion(found) };
  },
);
