// The evidence a reconciliation carries, one definition for the single reconcile (POST /api/v1/operations/{id}/reconcile)
// and the bulk one (POST /api/v1/bulk, the console's bulk dialog): any JSON value, whatever the provider or the person
// has (a provider's record, a status page's words). Its size and depth are bounded with the whole body (256 KiB, 64
// levels: lib/platform/http/request-body.ts); it is stored as given, in the operation's row and its audit record.
import { z } from "zod";

export const reconcileEvidence = z.json();
