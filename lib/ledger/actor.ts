// Who is acting: a signed-in person, an API key (bound to a person, the bootstrap key, or an agent identity) or
// opledger itself. Decisions compare principal ids; labels are for people to read (docs/authority.md#principals).
import type { CallerTrace } from "@/lib/platform/telemetry/caller-trace";

export type PersonRole = "viewer" | "operator" | "admin";

/** A console user, named by their user id; `label` is their email. */
export interface Person {
  id: string;
  label: string;
  role: PersonRole;
}

export type Actor =
  | ({ type: "user" } & Person)
  | {
      type: "api_key";
      /** The key's id. */
      id: string;
      /** The key's name and prefix, as people tell keys apart. */
      label: string;
      /** The key's scopes (agent, operator, admin, metrics). */
      scopes: readonly string[];
      /** The person an operator or admin key acts as; null for agent keys and the bootstrap key. */
      person: Person | null;
      /**
       * The trace of the call the key makes, when it sent a valid traceparent (docs/observability.md): what the call
       * plans and dispatches records its trace id, and opledger's spans join it.
       */
      trace?: CallerTrace;
    }
  | { type: "system"; id: "system"; label: string };

export const SYSTEM_ACTOR: Actor = { type: "system", id: "system", label: "recovery sweep" };

/** The person acting, directly or through a key bound to them; null for agents, the bootstrap key and the system. */
export function personOf(actor: Actor): Person | null {
  if (actor.type === "user") return { id: actor.id, label: actor.label, role: actor.role };
  if (actor.type === "api_key") return actor.person;
  return null;
}

/**
 * The principal for the four-eyes rule and quorum: a person by their user id (a key bound to a person counts as that
 * person), any other key by its key id, opledger as "system".
 */
export function principalId(actor: Actor): string {
  const person = personOf(actor);
  if (person) return `user:${person.id}`;
  return actor.type === "api_key" ? `api_key:${actor.id}` : "system";
}

/** The name people read in the audit trail and in decisions: a key bound to a person shows both. */
export function actorLabel(actor: Actor): string {
  if (actor.type === "api_key" && actor.person) return `${actor.person.label} (key ${actor.label})`;
  return actor.label;
}

/** The caller's trace the actor carries, if any (only an API key's call brings one). */
export function traceOf(actor: Actor): CallerTrace | undefined {
  return actor.type === "api_key" ? actor.trace : undefined;
}

/** The actor making a call that belongs to the caller's trace; the same actor when the call came without one. */
export function withTrace<A extends Actor>(actor: A, trace: CallerTrace | undefined): A {
  return trace && actor.type === "api_key" ? { ...actor, trace } : actor;
}
