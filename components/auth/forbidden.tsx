// What a signed-in person sees on a page their role does not allow: which role it needs and whom to ask.
import Link from "next/link";
import type { Role } from "@/lib/platform/auth/roles";

export interface ForbiddenProps {
  /** The role the page needs. */
  needed: Role;
  /** What the page is for, e.g. "Managing users and API keys". */
  what: string;
  /** The signed-in person, when known. */
  user: { email: string; role: Role } | null;
}

export function Forbidden({ needed, what, user }: ForbiddenProps) {
  return (
    <section aria-labelledby="forbidden-heading" className="max-w-2xl">
      <p className="font-mono text-xs text-ink-subtle">403 · forbidden</p>
      <h1 id="forbidden-heading" className="mt-1 text-lg font-semibold text-ink">
        This page needs the {needed} role
      </h1>
      <p className="mt-2 leading-relaxed text-ink-muted">
        {what} is for people with the <span className="font-mono text-ink">{needed}</span> role.
        {user ? (
          <>
            {" "}
            You are signed in as <span className="font-medium text-ink">{user.email}</span> with the{" "}
            <span className="font-mono text-ink">{user.role}</span> role.
          </>
        ) : null}{" "}
        Nothing was changed. If you need this, ask an admin to change your role.
      </p>
      <p className="mt-5">
        <Link href="/" className="font-medium text-ink underline underline-offset-4 hover:text-ink-muted">
          Back to the ledger
        </Link>
      </p>
    </section>
  );
}
