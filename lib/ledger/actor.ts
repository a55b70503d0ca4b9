// Who is acting: a signed-in person, an API key (possibly on behalf of a named person) or the system itself.

export type Actor =
  | { type: "user"; id: string; label: string; role: "viewer" | "operator" | "admin" }
  | { type: "api_key"; id: string; label: string; onBehalfOf?: string }
  | { type: "system"; id: "system"; label: string };

export const SYSTEM_ACTOR: Actor = { type: "system", id: "system", label: "recovery sweep" };

/** The name shown in the audit trail and compared by the four-eyes rule. */
export function actorName(actor: Actor): string {
  if (actor.type === "api_key" && actor.onBehalfOf) return actor.onBehalfOf;
  return actor.label;
}
