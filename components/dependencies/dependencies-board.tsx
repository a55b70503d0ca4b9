"use client";
// The live table of dependencies: breaker state, override and reason, failures, settings and their versions; operators
// force a breaker and admins tune its settings from here, each change confirmed and audited.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { MonoId } from "@/components/ui/mono-id";
import { RelativeTime } from "@/components/ui/relative-time";
import { ACTIONS_COLUMN, TableHeader } from "@/components/ui/table-header";
import { consoleGet, ConsoleApiError, keepPolling, LIVE_INTERVAL_MS } from "@/components/console-api";
import { Notice } from "@/components/ui/form-controls";
import { humanDuration } from "@/components/contracts/contract-words";
import type { BreakerOverride, DependencyView } from "@/lib/ledger/dependencies/dependencies";
import { BreakerBadge } from "./breaker-badge";
import { BreakerOverrideButton } from "./breaker-dialog";
import { BreakerSettingsButton } from "./breaker-settings-dialog";
import { SettingsHistory } from "./settings-history";

export interface DependenciesResponse {
  items: DependencyView[];
  at: string;
}

export const dependenciesKey = ["console", "dependencies"] as const;

const TD = "px-3 py-2 align-top";

/** The overrides that make sense from where the breaker is: never "force open" an already forced-open one. */
function overridesFor(dep: DependencyView): BreakerOverride[] {
  switch (dep.forced) {
    case "open":
      return ["closed", "auto"];
    case "closed":
      return ["open", "auto"];
    case null:
      return ["open", "closed"];
    default:
      return [];
  }
}

export function DependenciesBoard({
  initial,
  canAct,
  canEdit,
}: {
  initial: DependenciesResponse;
  canAct: boolean;
  /** An admin: may edit the breaker settings. */
  canEdit: boolean;
}) {
  const queryClient = useQueryClient();
  const [announcement, setAnnouncement] = useState("");
  const query = useQuery({
    queryKey: dependenciesKey,
    queryFn: ({ signal }) => consoleGet<DependenciesResponse>("/api/console/dependencies", signal),
    initialData: initial,
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
  });
  const data = query.data;

  function done(message: string) {
    setAnnouncement(message);
    void queryClient.invalidateQueries({ queryKey: dependenciesKey });
  }

  return (
    <div className="flex flex-col gap-3">
      <div aria-live="polite" className={announcement ? "" : "sr-only"}>
        {announcement ? <Notice tone="success">{announcement}</Notice> : null}
      </div>
      {query.isError ? (
        <Notice tone="error" title="Could not refresh the breakers" alert>
          {query.error instanceof ConsoleApiError ? query.error.message : "The console server did not answer."} The
          table below is from <RelativeTime value={data.at} />; it refreshes by itself every few seconds
          {keepPolling(query.error) ? "" : " once you reload the page"}.
        </Notice>
      ) : null}
      <div className="overflow-x-auto rounded-lg border border-line">
        <table className="w-full border-collapse text-[13px]">
          <caption className="sr-only">Dependencies and their circuit breakers</caption>
          <TableHeader
            columns={[
              "Dependency",
              "Breaker",
              {
                label: "Failures in a row",
                align: "right",
                hint: "Consecutive failures, and how many open the breaker",
              },
              "Last failure",
              { label: "Last hour", align: "right", hint: "Failed or unknown attempts in the last hour" },
              "Used by",
              ...(canAct || canEdit ? [ACTIONS_COLUMN] : []),
            ]}
          />
          {data.items.map((dep) => (
            // One body per dependency: its row, and the override's reason on a full-width row under it.
            <tbody
              key={dep.name}
              id={`dependency-${dep.name}`}
              data-dependency={dep.name}
              className="scroll-mt-4 border-b border-line last:border-b-0 target:bg-surface-muted"
            >
              <tr>
                <th scope="row" className={`${TD} text-left font-normal`}>
                  <span className="font-mono text-[12.5px] font-medium break-all text-ink">{dep.name}</span>
                  <span className="block text-xs whitespace-nowrap text-ink-subtle">
                    opens after {dep.failureThreshold} in a row · probes after {humanDuration(dep.cooldownMs)}
                  </span>
                  <span className="block text-xs whitespace-nowrap text-ink-subtle">
                    closes after {dep.probes} good {dep.probes === 1 ? "probe" : "probes in a row"}
                  </span>
                </th>
                <td className={`${TD} whitespace-nowrap`}>
                  <BreakerBadge state={dep.state} forced={dep.forced !== null} />
                  {dep.forced === null ? <BreakerNote dep={dep} /> : null}
                </td>
                <td className={`${TD} text-right whitespace-nowrap tabular-nums`}>
                  {dep.consecutiveFailures}
                  <span className="text-ink-subtle"> / {dep.failureThreshold}</span>
                </td>
                <td className={`${TD} whitespace-nowrap`}>
                  {dep.lastFailureAt ? (
                    <RelativeTime value={dep.lastFailureAt} />
                  ) : (
                    <span className="text-ink-subtle">none recorded</span>
                  )}
                </td>
                <td className={`${TD} text-right`}>
                  <RecentFailures dep={dep} />
                </td>
                <td className={TD}>
                  {dep.tools.length > 0 ? (
                    <ul className="flex flex-col gap-0.5">
                      {dep.tools.map((tool) => (
                        <li key={tool}>
                          <Link
                            href={`/contracts/${encodeURIComponent(tool)}`}
                            className="font-mono text-[12px] break-all text-ink-muted underline-offset-4 hover:text-ink hover:underline"
                          >
                            {tool}
                          </Link>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="text-ink-subtle">no current contract</span>
                  )}
                </td>
                {canAct || canEdit ? (
                  <td className={`${TD} w-px whitespace-nowrap`}>
                    <div className="flex justify-end gap-1.5">
                      {canAct
                        ? overridesFor(dep).map((target) => (
                            <BreakerOverrideButton key={target} dependency={dep} target={target} onDone={done} />
                          ))
                        : null}
                      {canEdit ? <BreakerSettingsButton dependency={dep} onDone={done} /> : null}
                    </div>
                  </td>
                ) : null}
              </tr>
              {dep.forced !== null ? (
                <tr>
                  <td colSpan={canAct || canEdit ? 7 : 6} className="px-3 pb-2">
                    <ForcedNote dep={dep} />
                  </td>
                </tr>
              ) : null}
              <tr>
                <td colSpan={canAct || canEdit ? 7 : 6} className="px-3 pb-2">
                  <SettingsHistory dep={dep} />
                </td>
              </tr>
            </tbody>
          ))}
        </table>
      </div>
    </div>
  );
}

/**
 * Who pinned the breaker, by the label people read. A record from before labels were kept named the person in
 * onBehalfOf (when a key acted for them) and the actor in actorId.
 */
function forcedByName(by: NonNullable<DependencyView["forcedBy"]>): string {
  return by.actorLabel ?? by.onBehalfOf ?? by.actorId;
}

function ForcedNote({ dep }: { dep: DependencyView }) {
  return (
    <p
      className="rounded-md bg-surface-sunken px-2.5 py-1.5 text-xs leading-relaxed text-ink-muted ring-1 ring-line ring-inset"
      data-testid="forced-note"
    >
      <span className="font-medium text-ink">Forced {dep.forced} by an operator</span>
      {dep.forcedBy ? (
        <>
          {" "}
          (<span title={`id ${dep.forcedBy.actorId}`}>{forcedByName(dep.forcedBy)}</span>,{" "}
          <RelativeTime value={dep.forcedBy.at} />)
        </>
      ) : null}
      : <q className="text-ink">{dep.forcedReason ?? "no reason recorded"}</q>.{" "}
      {dep.forced === "open"
        ? "New dispatches of its tools are refused as unavailable until someone forces it closed or returns it to automatic."
        : "Calls go through whatever the failure counter says, until someone returns it to automatic."}
    </p>
  );
}

/** One short line under the badge; the table cell does not wrap. */
function BreakerNote({ dep }: { dep: DependencyView }) {
  switch (dep.state) {
    case "closed":
      return <p className="mt-1 text-xs text-ink-subtle">Calls go through.</p>;
    case "open":
      return (
        <p className="mt-1 text-xs text-ink-subtle">
          Failing fast
          {dep.openedAt ? (
            <>
              {" "}
              since <RelativeTime value={dep.openedAt} />
            </>
          ) : null}
          {dep.nextTryAt ? (
            <>
              ; next probe <RelativeTime value={dep.nextTryAt} />
            </>
          ) : null}
          .
        </p>
      );
    case "half_open":
      return (
        <p className="mt-1 text-xs text-ink-subtle">
          {dep.probeInFlight ? "A probe call in flight." : "The next call is a probe."}
          {dep.probes > 1 ? ` ${dep.probeSuccesses} of ${dep.probes} probes succeeded.` : ""}
        </p>
      );
    default:
      return null;
  }
}

function RecentFailures({ dep }: { dep: DependencyView }) {
  if (dep.recentFailures === 0) return <span className="text-ink-subtle tabular-nums">0</span>;
  return (
    <details className="group inline-block text-left">
      <summary
        className={
          "cursor-pointer list-none text-right tabular-nums underline decoration-line-strong underline-offset-4 " +
          "hover:decoration-ink"
        }
      >
        {dep.recentFailures}
        <span className="sr-only"> failed or unknown attempts in the last hour; show the latest</span>
      </summary>
      <ul className="mt-1 flex flex-col gap-0.5 text-xs">
        {dep.lastFailures.map((f) => (
          <li key={`${f.operationId}-${f.attempt}`} className="whitespace-nowrap">
            <Link
              href={`/operations/${encodeURIComponent(f.operationId)}`}
              className="underline-offset-4 hover:underline"
            >
              <MonoId value={f.operationId} label="Operation" />
            </Link>{" "}
            <span className="text-ink-muted">
              #{f.attempt} {f.result}
              {f.errorKind ? ` · ${f.errorKind}` : ""}
              {f.httpStatus ? ` ${f.httpStatus}` : ""} · <RelativeTime value={f.at} />
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}
