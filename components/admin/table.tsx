// The admin tables' frame and cells, dense like the ledger's: a bordered, horizontally scrolling table with a caption
// for screen readers.
import type { ReactNode } from "react";
import { TableHeader, type TableHeaderProps } from "@/components/ui/table-header";

export function AdminTable({
  caption,
  columns,
  children,
}: {
  caption: string;
  columns: TableHeaderProps["columns"];
  children: ReactNode;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table className="w-full border-collapse text-left">
        <caption className="sr-only">{caption}</caption>
        <TableHeader columns={columns} />
        <tbody className="divide-y divide-line">{children}</tbody>
      </table>
    </div>
  );
}

export function Cell({ children, className = "" }: { children: ReactNode; className?: string }) {
  return <td className={`px-3 py-2 align-middle ${className}`}>{children}</td>;
}

/**
 * The success message after an action, announced politely; the region stays in the page so the announcement is heard.
 */
export function Notice({ message, onDismiss }: { message: string | null; onDismiss: () => void }) {
  return (
    <div role="status" aria-live="polite">
      {message ? (
        <div
          className={
            "mb-3 flex items-start justify-between gap-3 rounded-md bg-surface-muted px-3 py-2 text-ink ring-1 " +
            "ring-line-strong ring-inset"
          }
        >
          <p>{message}</p>
          <button
            type="button"
            onClick={onDismiss}
            className="text-xs text-ink-muted underline underline-offset-2 hover:text-ink"
          >
            Dismiss
          </button>
        </div>
      ) : null}
    </div>
  );
}

export function SectionHeader({
  id,
  title,
  description,
  action,
}: {
  id: string;
  title: string;
  description: string;
  action: ReactNode;
}) {
  return (
    <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h2 id={id} className="text-[15px] font-semibold text-ink">
          {title}
        </h2>
        <p className="mt-0.5 text-ink-muted">{description}</p>
      </div>
      {action}
    </div>
  );
}
