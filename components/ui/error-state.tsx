"use client";
// The body of an error boundary: what went wrong, that nothing was changed, and what to do next.
import { useEffect, useRef } from "react";

export interface ErrorStateProps {
  /** The value the boundary caught; only an Error's digest is shown, never its message from the server. */
  error: unknown;
  /** Re-fetch and re-render the failed part of the page. */
  retry: () => void;
}

function digestOf(error: unknown): string | undefined {
  if (error instanceof Error && "digest" in error && typeof error.digest === "string") return error.digest;
  return undefined;
}

export function ErrorState({ error, retry }: ErrorStateProps) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const digest = digestOf(error);

  // Move focus to the message so keyboard and screen-reader users learn the page failed.
  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  return (
    <section
      aria-labelledby="error-heading"
      className="rounded-lg border border-phase-failed/40 bg-phase-failed-soft px-6 py-6"
    >
      <h1
        id="error-heading"
        ref={headingRef}
        tabIndex={-1}
        className="text-base font-semibold text-phase-failed-ink focus:outline-none"
      >
        This page could not be shown
      </h1>
      <p className="mt-2 max-w-prose leading-relaxed text-ink">
        The console could not load or render what you asked for. If you had just approved, rejected or reconciled
        something, open the operation again and read its audit trail to see whether your action was recorded before
        repeating it.
      </p>
      <p className="mt-2 max-w-prose leading-relaxed text-ink-muted">
        Try again. If it keeps failing, the console server or its database may be unavailable: check the server logs
        {digest ? (
          <>
            {" "}
            for reference <code className="font-mono text-ink">{digest}</code>
          </>
        ) : null}
        .
      </p>
      <button
        type="button"
        onClick={retry}
        className="mt-4 rounded-md bg-ink px-3 py-1.5 font-medium text-surface hover:bg-ink/85"
      >
        Try again
      </button>
    </section>
  );
}
