// The top bar's note when the four-eyes rule is off (OPLEDGER_FOUR_EYES=off, for a team of one): everyone working
// the queues should know that the person who asked for an approval may also give it
// (docs/authority.md#four-eyes-and-quorum).
import { env } from "@/lib/platform/config/env";

/** A server component: the setting is read from the server's environment on every page render. */
export function FourEyesNote() {
  if (env().OPLEDGER_FOUR_EYES === "on") return null;
  return <FourEyesOffNote />;
}

export function FourEyesOffNote() {
  return (
    <p
      role="note"
      data-four-eyes="off"
      title={
        "OPLEDGER_FOUR_EYES=off: the person or key that caused an approval request may approve it. Meant for a " +
        "team of one; turn it on when a second person joins."
      }
      className={
        "flex min-w-0 items-center gap-1.5 truncate rounded-full bg-phase-unknown-soft px-2.5 py-0.5 text-xs " +
        "font-medium text-phase-unknown-ink ring-1 ring-phase-unknown/40 ring-inset"
      }
    >
      <span aria-hidden="true" className="size-1.5 shrink-0 rounded-full bg-phase-unknown" />
      <span className="truncate">Four-eyes off: whoever asks for an approval may also give it</span>
    </p>
  );
}
