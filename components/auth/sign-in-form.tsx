"use client";
// The sign-in form: email and password through next-auth's credentials provider, and single sign-on when configured.
import { signIn } from "next-auth/react";
import { useRef, useState, type FormEvent } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { signInErrorMessage, UNREACHABLE_MESSAGE } from "./sign-in-messages";

export interface SignInFormProps {
  /** A same-site path, already checked on the server. */
  callbackUrl: string;
  /** The OIDC provider, when one is configured. */
  sso: { id: string; name: string } | null;
  /** An error code next-auth put in the address, e.g. after a failed single sign-on. */
  initialError: string | null;
}

type Pending = "password" | "sso" | null;

function textOf(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

const INPUT_CLASS =
  "rounded-md bg-surface px-2.5 py-2 text-ink ring-1 ring-line-strong ring-inset placeholder:text-ink-subtle " +
  "focus-visible:outline-offset-0 read-only:bg-surface-muted";

export function SignInForm({ callbackUrl, sso, initialError }: SignInFormProps) {
  const [pending, setPending] = useState<Pending>(null);
  const [error, setError] = useState<string | null>(initialError ? signInErrorMessage(initialError) : null);
  const passwordRef = useRef<HTMLInputElement>(null);
  // Before hydration a submit would be the browser's own: a GET with the password in the address. So no submit until
  // then.
  const hydrated = useHydrated();

  function failed(message: string) {
    setError(message);
    setPending(null);
    const password = passwordRef.current;
    if (password) {
      password.value = "";
      password.focus();
    }
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const form = new FormData(event.currentTarget);
    setPending("password");
    setError(null);
    try {
      const result = await signIn("credentials", {
        redirect: false,
        email: textOf(form, "email"),
        password: textOf(form, "password"),
        callbackUrl,
      });
      if (!result || result.error || !result.ok) {
        failed(signInErrorMessage(result?.error ?? "Default"));
        return;
      }
      // A full navigation, so every server component renders with the new session cookie.
      window.location.assign(callbackUrl);
    } catch {
      failed(UNREACHABLE_MESSAGE);
    }
  }

  async function signInWithSso(provider: string) {
    setPending("sso");
    setError(null);
    try {
      await signIn(provider, { callbackUrl });
    } catch {
      failed(UNREACHABLE_MESSAGE);
    }
  }

  const busy = pending !== null;
  return (
    <div className="flex flex-col gap-5">
      <div role="alert" className="empty:hidden">
        {error ? (
          <p className="rounded-md bg-phase-failed-soft px-3 py-2 text-phase-failed-ink ring-1 ring-phase-failed/30 ring-inset">
            {error}
          </p>
        ) : null}
      </div>

      <form
        method="post"
        onSubmit={(event) => void submit(event)}
        aria-busy={pending === "password"}
        className="flex flex-col gap-4"
      >
        <div className="flex flex-col gap-1">
          <label htmlFor="signin-email" className="font-medium text-ink">
            Email
          </label>
          <input
            id="signin-email"
            name="email"
            type="email"
            autoComplete="username"
            required
            // Signing in is the only thing to do on this page.
            autoFocus
            readOnly={busy}
            className={INPUT_CLASS}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="signin-password" className="font-medium text-ink">
            Password
          </label>
          <input
            ref={passwordRef}
            id="signin-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            readOnly={busy}
            className={INPUT_CLASS}
          />
        </div>
        <button
          type="submit"
          disabled={busy || !hydrated}
          className="mt-1 rounded-md bg-ink px-3 py-2 font-medium text-surface hover:bg-ink/85 disabled:cursor-progress disabled:opacity-70"
        >
          {pending === "password" ? "Signing in…" : "Sign in"}
        </button>
      </form>

      {sso ? (
        <>
          <div className="flex items-center gap-3 text-xs text-ink-subtle" aria-hidden="true">
            <span className="h-px flex-1 bg-line" />
            or
            <span className="h-px flex-1 bg-line" />
          </div>
          <button
            type="button"
            onClick={() => void signInWithSso(sso.id)}
            disabled={busy}
            className={
              "rounded-md bg-surface px-3 py-2 font-medium text-ink ring-1 ring-line-strong ring-inset " +
              "hover:bg-surface-sunken disabled:cursor-progress disabled:opacity-70"
            }
          >
            {pending === "sso" ? `Opening ${sso.name}…` : `Sign in with ${sso.name}`}
          </button>
        </>
      ) : null}
    </div>
  );
}
