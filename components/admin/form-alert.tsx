"use client";
// The message above a form when an admin action failed: what went wrong and what to do; field problems point to their
// fields.
import Link from "next/link";
import type { ActionFailure } from "./use-admin-action";

export function FormAlert({ failure }: { failure: ActionFailure | null }) {
  if (!failure) return null;
  const aboutFields = Object.keys(failure.errors).length > 0;
  return (
    <div
      role="alert"
      className="rounded-md bg-phase-failed-soft px-3 py-2 text-phase-failed-ink ring-1 ring-phase-failed/30 ring-inset"
    >
      <p>
        {aboutFields ? "Nothing was saved: some fields need attention, see the messages below them." : failure.message}
      </p>
      {failure.code === "unauthenticated" ? (
        <p className="mt-1">
          <Link href="/signin?callbackUrl=%2Fadmin" className="font-medium underline underline-offset-2">
            Sign in again
          </Link>
        </p>
      ) : null}
    </div>
  );
}
