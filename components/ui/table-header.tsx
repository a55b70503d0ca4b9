// The header row of the console's tables: column labels with scope="col", so screen readers name each cell by its
// column.
import type { ReactNode } from "react";

export interface Column {
  label: ReactNode;
  /** Read by screen readers only, for a column of buttons or links whose purpose the cells make plain. */
  srOnly?: boolean;
  /** Numbers line up on the right. */
  align?: "left" | "right";
  /** What a short label means, on hover. */
  hint?: string;
  /** As narrow as its content, for a column of buttons. */
  fit?: boolean;
  /** A long label may break over two lines; the rest stay on one. */
  wrap?: boolean;
}

/** The last column of a table whose rows have buttons: named for screen readers only, as narrow as the buttons. */
export const ACTIONS_COLUMN: Column = { label: "Actions", srOnly: true, fit: true };

/**
 * "labels" for the pages about rules and records; "caps" for the operation lists, whose small capitals read as the
 * ledger's own. Each table keeps the side padding of its cells so the labels stand over their values.
 */
const LOOKS = {
  labels: "text-xs font-medium text-ink-muted",
  caps: "text-[11px] font-bold tracking-wide text-ink-subtle uppercase",
} as const;

export interface TableHeaderProps {
  columns: readonly (Column | string)[];
  look?: keyof typeof LOOKS;
  inset?: "px-2" | "px-2.5" | "px-3";
}

export function TableHeader({ columns, look = "labels", inset = "px-3" }: TableHeaderProps) {
  return (
    <thead className="border-b border-line bg-surface-muted">
      <tr>
        {columns.map((entry, index) => {
          const column = typeof entry === "string" ? { label: entry } : entry;
          return (
            <th
              key={index}
              scope="col"
              title={column.hint}
              className={`${inset} py-2 ${column.align === "right" ? "text-right" : "text-left"} ${LOOKS[look]} ${
                column.wrap ? "" : "whitespace-nowrap"
              } ${column.fit ? "w-px" : ""}`}
            >
              {column.srOnly ? <span className="sr-only">{column.label}</span> : column.label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
