// Who acted, as the console shows it: the record's label (an email; "alice@x (key bot (opl_…))" for a key acting as a
// person), never the stable id that decisions and filters use. Records written before labels were kept have none: their
// actorId was the label, and their onBehalfOf named the person.
export interface RecordedActor {
  actorType: string;
  actorId: string;
  onBehalfOf: string | null;
  actorLabel: string | null;
}

export interface ActorDisplay {
  /** What people read for the actor. */
  name: string;
  /** "person", "API key" or "opledger itself". */
  kind: string;
  /** The person a key acted for, when the label does not already say it (older records only). */
  forPerson: string | null;
}

function kindOf(actorType: string): string {
  if (actorType === "user") return "person";
  if (actorType === "api_key") return "API key";
  if (actorType === "system") return "opledger itself";
  return actorType;
}

export function actorDisplay(actor: RecordedActor): ActorDisplay {
  return {
    name: actor.actorLabel ?? actor.actorId,
    kind: kindOf(actor.actorType),
    // A label of a key bound to a person names the person; onBehalfOf is then a user id, not for reading.
    forPerson: actor.actorLabel === null ? actor.onBehalfOf : null,
  };
}
