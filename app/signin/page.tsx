// Sign-in page: outside the console frame; a person who is already signed in goes straight on to where they were
// headed.
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { safeCallbackUrl } from "@/lib/platform/auth/callback-url";
import { SignInForm } from "@/components/auth/sign-in-form";
import { authOptions } from "@/lib/platform/auth/auth-options";
import { currentUser } from "@/lib/platform/auth/session";

export const metadata: Metadata = { title: "Sign in" };

function ssoProvider(): { id: string; name: string } | null {
  const provider = authOptions.providers.find((p) => p.id === "oidc");
  return provider ? { id: provider.id, name: provider.name } : null;
}

function originOf(url: string | undefined): string | undefined {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl, originOf(process.env.NEXTAUTH_URL));
  if (await currentUser()) redirect(callbackUrl);
  const error = typeof params.error === "string" ? params.error : null;

  return (
    <main className="flex min-h-dvh items-start justify-center bg-surface-sunken px-4 pt-[12vh] pb-10">
      <div className="w-full max-w-sm">
        <p className="mb-5 flex items-baseline justify-center gap-2">
          <span className="font-mono text-lg font-semibold tracking-tight text-ink">opledger</span>
          <span className="text-xs text-ink-subtle">operator console</span>
        </p>
        <div className="rounded-lg bg-surface px-6 py-6 shadow-sm ring-1 ring-line-strong">
          <h1 className="text-base font-semibold text-ink">Sign in</h1>
          <p className="mt-1 mb-5 text-ink-muted">Use the email and password an admin gave you.</p>
          <SignInForm callbackUrl={callbackUrl} sso={ssoProvider()} initialError={error} />
        </div>
        <p className="mt-4 text-center text-xs leading-relaxed text-ink-subtle">
          Locked out or forgot your password? Ask an admin to reset it.
        </p>
      </div>
    </main>
  );
}
