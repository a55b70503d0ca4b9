"use server";
// Console action: run an operation's provider lookup for the Reconcile dialog and return the evidence; nothing is changed.
import { z } from "zod";
import { consoleAction } from "@/lib/actions/console-action";
import { lookupForOperation } from "@/lib/ledger/auto-reconcile";
import type { LookupEvidence } from "@/lib/ledger/provider-lookup";

const lookupSchema = z.object({ operationId: z.string().trim().min(1).max(64) }).strict();

export type ProviderLookupInput = z.input<typeof lookupSchema>;

/**
 * Operator role: the lookup is a read, but it calls the provider with the server's credentials, so a viewer may not
 * make the server do it. A lookup that fails comes back as evidence with `ok: false` and a reason, not as an error;
 * an unknown operation is `{ ok: false, code: "not_found" }` from the action wrapper.
 */
export const runProviderLookup = consoleAction("operator", lookupSchema, async (input, ctx): Promise<LookupEvidence> =>
  lookupForOperation(ctx.client, input.operationId, fetch, ctx.now),
);
