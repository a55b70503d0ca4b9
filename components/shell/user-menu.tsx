// The signed-in person in the top bar: email, role and a Sign out button; a sign-in link when nobody is signed in.
import Link from "next/link";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { currentUser } from "@/lib/platform/auth/session";

export async function UserMenu() {
  const user = await currentUser();
  if (!user) {
    return (
      <Link href="/signin" className="text-xs font-medium text-ink underline underline-offset-4">
        Sign in
      </Link>
    );
  }
  return (
    <div className="flex min-w-0 items-center gap-2.5">
      <span className="min-w-0 truncate text-xs text-ink" title={user.name}>
        <span className="sr-only">Signed in as </span>
        {user.email}
      </span>
      <span className="shrink-0 rounded-sm bg-surface-sunken px-1.5 py-px font-mono text-[11px] text-ink-muted ring-1 ring-line ring-inset">
        <span className="sr-only">role </span>
        {user.role}
      </span>
      <SignOutButton />
    </div>
  );
}
