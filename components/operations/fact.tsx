// One labelled fact in the operation page's description lists, and the dash for a fact the operation does not have.
import type { ReactNode } from "react";

export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-ink-subtle">{label}</dt>
      <dd className="text-ink">{children}</dd>
    </>
  );
}

export function None() {
  return <span className="text-ink-subtle">—</span>;
}
