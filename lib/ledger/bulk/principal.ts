// Who may act in bulk, and who made a preview: only that principal may run it (a person's key is another principal
// than the person's session, so a preview made through a key is run through that key).
import { personOf, type Actor } from "../actor";
import { seesAllOperations } from "../commands/authority";
import { LedgerError } from "../errors";

/** The exact principal that previewed: user:<id> or api_key:<id>. */
export function bulkPrincipal(actor: Actor): string {
  return `${actor.type}:${actor.id}`;
}

/**
 * Bulk actions are an operator's: a person with the operator or admin role, or a key with the operator or admin scope.
 * Agent keys and viewers are refused before anything is read.
 */
export function requireBulkOperator(actor: Actor): void {
  const person = personOf(actor);
  const operatorKey = actor.type === "api_key" && seesAllOperations(actor);
  const operatorPerson = actor.type === "user" && person !== null && person.role !== "viewer";
  const boundToViewer = actor.type === "api_key" && person?.role === "viewer";
  if ((operatorKey && !boundToViewer) || operatorPerson) return;
  throw new LedgerError(
    "person_required",
    "Bulk actions are an operator's decision: a person with the operator role, or a key with the operator scope.",
  );
}
