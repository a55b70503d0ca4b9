// Shown for an operation id the ledger does not have.
import Link from "next/link";

export default function OperationNotFound() {
  return (
    <section className="max-w-xl py-6">
      <h1 className="text-lg font-semibold text-ink">There is no operation with this id</h1>
      <p className="mt-2 leading-relaxed text-ink-muted">
        Operation ids are ULIDs such as <code className="font-mono text-[12.5px]">01JD5Q9ZK7W3M8X2C4B6N0P1RS</code>.
        Check the link for a typo, or find the operation in the ledger by its tool, run or agent.
      </p>
      <p className="mt-4">
        <Link href="/" className="font-medium text-ink underline underline-offset-4 hover:text-ink-muted">
          Open the ledger
        </Link>
      </p>
    </section>
  );
}
