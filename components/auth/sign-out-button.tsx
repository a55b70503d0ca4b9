"use client";
// Ends the session through next-auth and lands on the sign-in page.
import { signOut } from "next-auth/react";
import { useState } from "react";

export function SignOutButton() {
  const [pending, setPending] = useState(false);

  async function signOutNow() {
    setPending(true);
    try {
      await signOut({ callbackUrl: "/signin" });
    } catch {
      // The request failed before the redirect: the session is still there, so let the person try again.
      setPending(false);
    }
  }

  return (
    <button
      type="button"
      onClick={() => void signOutNow()}
      disabled={pending}
      className={
        "rounded-md px-2 py-1 text-xs font-medium text-ink-muted ring-1 ring-line-strong ring-inset " +
        "hover:bg-surface-sunken hover:text-ink disabled:cursor-progress disabled:opacity-70"
      }
    >
      {pending ? "Signing out…" : "Sign out"}
    </button>
  );
}
