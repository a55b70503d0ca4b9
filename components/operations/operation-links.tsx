// Under the operation's title: the operations it repeats, replays or was replayed as, each a link.
import Link from "next/link";
import type { OperationDetail as Operation } from "@/lib/ledger/reads/operations";
import { formatExactUtc } from "@/components/ui/format-time";

/**
 * An MCP call made again after its answer was delivered is a new operation: the earlier one, as it ended. A person
 * deciding on a held repeat (a suspected duplicate) sees that the same call already succeeded, and when.
 */
export function RepeatLink({ op }: { op: Operation }) {
  const earlier = op.repeated;
  if (!earlier) return null;
  const ended = earlier.phase === "CONFIRMED" ? "succeeded" : earlier.phase === "FAILED" ? "failed" : "ended";
  return (
    <p className="mt-1 text-[13px] text-ink-muted" data-repeat-of={earlier.id}>
      A repeat: the same call {ended} at {formatExactUtc(Date.parse(earlier.at))}, operation{" "}
      <Link
        href={`/operations/${encodeURIComponent(earlier.id)}`}
        className="font-mono text-[12.5px] underline underline-offset-4 hover:text-ink"
      >
        {earlier.id}
      </Link>
    </p>
  );
}

/** A replay and its original point at each other (a replay is a new operation with its own key). */
export function ReplayLinks({ op }: { op: Operation }) {
  if (!op.replayOf && op.replays.length === 0) return null;
  const link = "font-mono text-[12.5px] underline underline-offset-4 hover:text-ink";
  return (
    <p className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-[13px] text-ink-muted">
      {op.replayOf ? (
        <span data-replay-of={op.replayOf}>
          Replay of{" "}
          <Link href={`/operations/${encodeURIComponent(op.replayOf)}`} className={link}>
            {op.replayOf}
          </Link>
        </span>
      ) : null}
      {op.replays.length > 0 ? (
        <span data-replays>
          Replayed as{" "}
          {op.replays.map((id, i) => (
            <span key={id}>
              {i > 0 ? ", " : ""}
              <Link href={`/operations/${encodeURIComponent(id)}`} className={link} data-replay-link={id}>
                {id}
              </Link>
            </span>
          ))}
        </span>
      ) : null}
    </p>
  );
}
