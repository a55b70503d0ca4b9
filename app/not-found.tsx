// Shown for any address the console does not have, with a way back to the ledger.
import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";

export const metadata: Metadata = { title: "Page not found" };

export default async function NotFound() {
  // Rendered per request, never prerendered: only a rendered page carries the script nonce proxy.ts's policy demands.
  await connection();
  return (
    <main className="mx-auto max-w-xl px-6 py-16">
      <p className="font-mono text-xs text-ink-subtle">404</p>
      <h1 className="mt-1 text-lg font-semibold text-ink">There is nothing at this address</h1>
      <p className="mt-2 leading-relaxed text-ink-muted">
        The page may have moved, or the link has a typo. If you followed a link to an operation, check its id: operation
        ids are shown in full when you hover over them in the ledger.
      </p>
      <p className="mt-5 flex gap-4">
        <Link href="/" className="font-medium text-ink underline underline-offset-4 hover:text-ink-muted">
          Open the ledger
        </Link>
        <Link href="/unknowns" className="font-medium text-ink underline underline-offset-4 hover:text-ink-muted">
          Open the unknowns queue
        </Link>
      </p>
    </main>
  );
}
