"use client";
// What an operations list shows while it loads, when it fails, and whether it is refreshing itself.
import Link from "next/link";
import { Skeleton } from "@/components/ui/skeleton";
import { LIVE_TICK_MS, useNow } from "@/components/ui/use-now";
import { ConsoleApiError } from "@/components/console-api";

export function TableSkeleton({ columns, rows = 8, label }: { columns: number; rows?: number; label: string }) {
  return (
    <div role="status" aria-live="polite" aria-busy="true" className="overflow-hidden rounded-lg border border-line">
      <span className="sr-only">{label}</span>
      <div className="flex gap-6 border-b border-line bg-surface-muted px-3 py-2.5">
        {Array.from({ length: columns }, (_, i) => (
          <Skeleton key={i} className="h-3 w-20" />
        ))}
      </div>
      {Array.from({ length: rows }, (_, row) => (
        <div key={row} className="flex items-center gap-6 border-b border-line px-3 py-2.5 last:border-b-0">
          {Array.from({ length: columns }, (_, i) => (
            <Skeleton key={i} className={i === 0 ? "h-4 w-32" : i % 3 === 0 ? "h-5 w-20 rounded-full" : "h-4 w-20"} />
          ))}
        </div>
      ))}
    </div>
  );
}

/** A failed load, in words: what failed, that nothing changed, and what to do. */
export function ListError({ error, what, onRetry }: { error: unknown; what: string; onRetry: () => void }) {
  const signedOut = error instanceof ConsoleApiError && error.status === 401;
  const detail = error instanceof ConsoleApiError ? error.message : "The console could not load this list.";
  return (
    <section role="alert" className="rounded-lg border border-phase-failed/40 bg-phase-failed-soft px-5 py-4">
      <h2 className="font-semibold text-phase-failed-ink">Could not load {what}</h2>
      <p className="mt-1 max-w-prose text-ink">{detail} Nothing was changed.</p>
      <div className="mt-3 flex gap-3">
        {signedOut ? (
          <Link href="/signin" className="rounded-md bg-ink px-3 py-1.5 font-medium text-surface hover:bg-ink/85">
            Sign in again
          </Link>
        ) : (
          <button
            type="button"
            onClick={onRetry}
            className="rounded-md bg-ink px-3 py-1.5 font-medium text-surface hover:bg-ink/85"
          >
            Try again
          </button>
        )}
      </div>
    </section>
  );
}

export interface LiveStatusProps {
  /** Live refresh is possible here (the newest page, not an older one). */
  available: boolean;
  paused: boolean;
  onToggle?: () => void;
  /** Data are being fetched right now. */
  fetching: boolean;
  /** A background refresh failed; the rows shown are the last good ones. */
  stale: boolean;
  updatedAt: number;
}

function clock(ms: number): string {
  return ms > 0 ? new Date(ms).toISOString().slice(11, 19) + " UTC" : "—";
}

/** "Live · updated 14:02:11 UTC" with Pause/Resume; on an older page it says why it is not live. */
export function LiveStatus({ available, paused, onToggle, fetching, stale, updatedAt }: LiveStatusProps) {
  const live = available && !paused;
  // Null while server-rendering and hydrating: the server's fetch time would not match the browser's, nor whether a
  // fetch is under way (the browser may start one on mount for rows the server rendered).
  const mounted = useNow(LIVE_TICK_MS) !== null;
  // Only the state is announced; the clock changes every 5 s and would be noise to a screen reader.
  const state = stale
    ? "Refresh failed"
    : !available
      ? "Paused while you browse older pages"
      : paused
        ? "Paused"
        : "Live, every 5 s";
  return (
    <div className="flex items-center gap-3 text-xs text-ink-muted">
      <span className="flex items-center gap-1.5" data-live={live ? "on" : "off"}>
        <span
          aria-hidden="true"
          className={
            `size-2 rounded-full ${stale ? "bg-phase-failed" : live ? "bg-phase-confirmed" : "bg-line-strong"} ` +
            (live && fetching && mounted ? "motion-safe:animate-pulse" : "")
          }
        />
        <span role="status">{state}</span>
        <span className="tabular-nums">
          · {stale ? "showing rows from" : "updated"} {mounted ? clock(updatedAt) : "—"}
        </span>
      </span>
      {available && onToggle ? (
        <button
          type="button"
          onClick={onToggle}
          className="rounded-md px-2 py-1 font-medium text-ink ring-1 ring-line-strong hover:bg-surface-muted"
        >
          {paused ? "Resume live updates" : "Pause live updates"}
        </button>
      ) : null}
    </div>
  );
}
