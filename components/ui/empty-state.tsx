// What a page shows when it has nothing to list: what would appear here, and why it would.
import type { ReactNode } from "react";
import { useId } from "react";

export interface EmptyStateProps {
  /** What is absent, stated plainly: "No operations are waiting for reconciliation." */
  title: string;
  /** Why something would appear here, so an operator knows whether empty is good news. */
  children: ReactNode;
  /** Optional next step, e.g. a link. */
  action?: ReactNode;
}

export function EmptyState({ title, children, action }: EmptyStateProps) {
  const headingId = useId();
  return (
    <section
      aria-labelledby={headingId}
      className="rounded-lg border border-dashed border-line-strong bg-surface-muted px-6 py-10 text-center"
    >
      <h2 id={headingId} className="text-[15px] font-medium text-ink">
        {title}
      </h2>
      <div className="mx-auto mt-2 max-w-prose leading-relaxed text-ink-muted">{children}</div>
      {action ? <div className="mt-4 flex justify-center">{action}</div> : null}
    </section>
  );
}
