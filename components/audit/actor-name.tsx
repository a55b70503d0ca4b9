// Who made an audit record, as people read it ("alice@example.com (person)", "opledger itself (approval expiry)"); the
// stable id the filters use is on hover.
import { actorDisplay, type RecordedActor } from "@/lib/console/actor-label";

export function ActorName({ event }: { event: RecordedActor }) {
  const shown = actorDisplay(event);
  if (event.actorType === "system") {
    return (
      <span>
        opledger itself{event.actorLabel ? <span className="text-ink-subtle"> ({event.actorLabel})</span> : null}
      </span>
    );
  }
  return (
    <span title={event.actorId === shown.name ? undefined : `id ${event.actorId}`}>
      <span className="text-ink">{shown.name}</span> <span className="text-ink-subtle">({shown.kind})</span>
      {shown.forPerson ? (
        <>
          {" "}
          on behalf of <span className="text-ink">{shown.forPerson}</span>
        </>
      ) : null}
    </span>
  );
}
