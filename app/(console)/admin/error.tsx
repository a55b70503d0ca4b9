"use client";
// Error boundary of the admin page: the lists could not be loaded, what that means for a change just made, and what to
// do.
import { useEffect, useRef } from "react";

function digestOf(error: unknown): string | undefined {
  if (error instanceof Error && "digest" in error && typeof error.digest === "string") return error.digest;
  return undefined;
}

export default function AdminError({ error, retry }: { error: unknown; retry: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const digest = digestOf(error);

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  return (
    <section
      aria-labelledby="admin-error-heading"
      className="rounded-lg border border-phase-failed/40 bg-phase-failed-soft px-6 py-6"
    >
      <h1
        id="admin-error-heading"
        ref={headingRef}
        tabIndex={-1}
        className="text-base font-semibold text-phase-failed-ink focus:outline-none"
      >
        Users and API keys could not be loaded
      </h1>
      <p className="mt-2 max-w-prose leading-relaxed text-ink">
        If you had just created, disabled or revoked something, it may or may not have been saved: after the page loads
        again, check the list (and the audit trail) before repeating it. A new API key that you did not see is not
        recoverable; revoke it and create another.
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
