// The audit log as a dense table: when, who (and for whom), what, on which subject, from which phase to which, and why.
import Link from "next/link";
import { PhaseBadge } from "@/components/operations/phase-badge";
import { MonoId } from "@/components/ui/mono-id";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHeader } from "@/components/ui/table-header";
import type { AuditView } from "@/lib/ledger/reads/operation-view";
import { actorDisplay } from "@/lib/console/actor-label";
import { PHASES, type Phase } from "@/lib/retry-gate/types";
import { auditHref, type AuditSearch } from "@/lib/console/audit-search";

const TD = "px-3 py-1.5 align-top";
const LABEL = "block text-[10.5px] leading-4 font-medium tracking-wide text-ink-subtle uppercase";

function isPhase(value: string): value is Phase {
  return (PHASES as readonly string[]).includes(value);
}

function actorTypeLabel(type: string): string {
  if (type === "api_key") return "API key";
  return type;
}

function PhaseCell({ phase }: { phase: string | null }) {
  if (!phase) return <span className="text-xs text-ink-subtle">none</span>;
  return isPhase(phase) ? <PhaseBadge phase={phase} /> : <span className="font-mono text-xs">{phase}</span>;
}

function Subject({ event }: { event: AuditView }) {
  const id = event.subjectId;
  switch (event.subjectType) {
    case "operation":
      return (
        <Link href={`/operations/${encodeURIComponent(id)}`} className="text-ink underline-offset-4 hover:underline">
          <MonoId value={id} label="Operation" maxChars={16} />
        </Link>
      );
    case "contract":
      return (
        <Link
          href={`/contracts/${encodeURIComponent(id)}`}
          className="font-mono text-[12.5px] text-ink underline-offset-4 hover:underline"
        >
          {id}
        </Link>
      );
    case "dependency":
      return (
        <Link
          href={`/dependencies#dependency-${encodeURIComponent(id)}`}
          className="font-mono text-[12.5px] text-ink underline-offset-4 hover:underline"
        >
          {id}
        </Link>
      );
    default:
      return <MonoId value={id} maxChars={28} />;
  }
}

/**
 * The actor by the label people read; the link filters by the stable id (a user id, a key id, "system"), which also
 * finds what a person did through their keys. A key acting for a person offers that person's records too.
 */
function Who({ event, filterLink }: { event: AuditView; filterLink: (patch: AuditSearch) => string }) {
  const shown = actorDisplay(event);
  return (
    <>
      <span className={LABEL}>{actorTypeLabel(event.actorType)}</span>
      <Link
        href={filterLink({ actorId: event.actorId })}
        title={`${shown.name}: show only their records (id ${event.actorId})`}
        className="block max-w-56 truncate text-ink underline-offset-4 hover:underline"
        data-actor-id={event.actorId}
      >
        {shown.name}
      </Link>
      {event.onBehalfOf ? (
        <span className="block max-w-56 truncate text-xs text-ink-muted">
          {shown.forPerson ? (
            <>
              for{" "}
              <Link
                href={filterLink({ actorId: event.onBehalfOf })}
                title={`on behalf of ${shown.forPerson}: show only their records`}
                className="text-ink underline-offset-4 hover:underline"
              >
                {shown.forPerson}
              </Link>
            </>
          ) : (
            <Link
              href={filterLink({ actorId: event.onBehalfOf })}
              title="Everything this key's person did, directly or through their keys"
              className="text-ink underline-offset-4 hover:underline"
            >
              all of this person&apos;s records
            </Link>
          )}
        </span>
      ) : null}
    </>
  );
}

export function AuditTable({ events, search }: { events: AuditView[]; search: AuditSearch }) {
  const filterLink = (patch: AuditSearch) => auditHref({ ...search, cursor: undefined, ...patch });
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table className="w-full border-collapse text-[13px]">
        <caption className="sr-only">Audit records, newest first</caption>
        <TableHeader columns={["When", "Who", "Action and phase", "Subject", "Reason"]} />
        <tbody>
          {events.map((e) => (
            <tr
              key={e.id}
              data-action={e.action}
              className="border-b border-line last:border-b-0 hover:bg-surface-muted"
            >
              <td className={`${TD} whitespace-nowrap`}>
                <RelativeTime value={e.createdAt} />
              </td>
              <td className={TD}>
                <Who event={e} filterLink={filterLink} />
              </td>
              <td className={`${TD} whitespace-nowrap`}>
                <Link
                  href={filterLink({ action: e.action })}
                  title={`Show only ${e.action} records`}
                  className="font-mono text-[12.5px] text-ink underline-offset-4 hover:underline"
                >
                  {e.action}
                </Link>
                {e.fromPhase || e.toPhase ? (
                  <span className="mt-1 flex items-center gap-1">
                    <span className="sr-only">phase from</span>
                    <PhaseCell phase={e.fromPhase} />
                    <span aria-hidden="true" className="text-ink-subtle">
                      →
                    </span>
                    <span className="sr-only">to</span>
                    <PhaseCell phase={e.toPhase} />
                  </span>
                ) : null}
              </td>
              <td className={TD}>
                <span className={LABEL}>{actorTypeLabel(e.subjectType)}</span>
                <span className="block max-w-52 truncate" title={e.subjectId}>
                  <Subject event={e} />
                </span>
              </td>
              <td className={`${TD} min-w-56 text-ink-muted`}>
                <span className="line-clamp-2" title={e.reason ?? undefined}>
                  {e.reason ?? <span className="text-ink-subtle">—</span>}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
