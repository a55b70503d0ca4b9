// The heading of a console page: its name, one line on what it is for, and room for page actions.
import type { ReactNode } from "react";

export interface PageHeaderProps {
  title: string;
  /** One sentence in the operator's words. */
  description: string;
  /** Buttons or filters that act on the whole page. */
  actions?: ReactNode;
}

export function PageHeader({ title, description, actions }: PageHeaderProps) {
  return (
    <div className="mb-5 flex flex-wrap items-end justify-between gap-3 border-b border-line pb-4">
      <div className="min-w-0">
        <h1 className="text-lg font-semibold tracking-tight text-ink">{title}</h1>
        <p className="mt-0.5 text-ink-muted">{description}</p>
      </div>
      {actions ? <div className="flex items-center gap-2">{actions}</div> : null}
    </div>
  );
}
