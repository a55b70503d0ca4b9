// Shown for a run id no operation carries.
import Link from "next/link";

export default function RunNotFound() {
  return (
    <section className="max-w-xl py-6">
      <h1 className="text-lg font-semibold text-ink">No operation belongs to this run</h1>
      <p className="mt-2 leading-relaxed text-ink-muted">
        A run id is what an agent sent as <code className="font-mono text-[12.5px]">runId</code> when it planned its
        operations. Check the link for a typo, or filter the ledger by run.
      </p>
      <p className="mt-4">
        <Link href="/" className="font-medium text-ink underline underline-offset-4 hover:text-ink-muted">
          Open the ledger
        </Link>
      </p>
    </section>
  );
}
