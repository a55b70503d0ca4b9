// The console's left navigation, grouped by what an operator is doing, with live counts for the two queues.
import type { ReactNode } from "react";
import { CountBadge } from "./count-badge";
import { NavLink } from "./nav-link";

export interface NavProps {
  /** Operations in UNKNOWN; undefined while not known. */
  unknownCount?: number;
  /** Operations waiting for approval; undefined while not known. */
  approvalCount?: number;
  /** Shows the Administration entry (the page checks the role again). */
  isAdmin?: boolean;
}

export function Nav({ unknownCount, approvalCount, isAdmin = false }: NavProps) {
  return (
    <nav aria-label="Console" className="flex gap-4 px-3 py-2 md:flex-col md:gap-5 md:py-4">
      <NavSection title="Operations">
        <li>
          <NavLink href="/" activePrefixes={["/operations"]}>
            Ledger
          </NavLink>
        </li>
        <li>
          <NavLink href="/unknowns">
            Unknowns
            <CountBadge count={unknownCount} singular="unknown operation" plural="unknown operations" tone="unknown" />
          </NavLink>
        </li>
        <li>
          <NavLink href="/approvals">
            Approvals
            <CountBadge
              count={approvalCount}
              singular="operation awaiting approval"
              plural="operations awaiting approval"
              tone="approval"
            />
          </NavLink>
        </li>
      </NavSection>
      <NavSection title="Configuration">
        <li>
          <NavLink href="/contracts">Contracts</NavLink>
        </li>
        <li>
          <NavLink href="/dependencies">Dependencies</NavLink>
        </li>
        <li>
          <NavLink href="/upstreams">Upstreams</NavLink>
        </li>
        {isAdmin ? (
          <li>
            <NavLink href="/webhooks">Webhooks</NavLink>
          </li>
        ) : null}
      </NavSection>
      <NavSection title="Records">
        <li>
          <NavLink href="/metrics">Metrics</NavLink>
        </li>
        <li>
          <NavLink href="/audit">Audit</NavLink>
        </li>
      </NavSection>
      {isAdmin ? (
        <NavSection title="Administration">
          <li>
            <NavLink href="/admin">Users and API keys</NavLink>
          </li>
        </NavSection>
      ) : null}
    </nav>
  );
}

function NavSection({ title, children }: { title: string; children: ReactNode }) {
  const id = `nav-${title.toLowerCase()}`;
  return (
    <div className="shrink-0">
      <p
        id={id}
        className="mb-1 hidden px-2.5 text-[11px] font-semibold tracking-wide text-ink-subtle uppercase md:block"
      >
        {title}
      </p>
      <ul aria-labelledby={id} className="flex gap-0.5 md:flex-col">
        {children}
      </ul>
    </div>
  );
}
