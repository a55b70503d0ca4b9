"use client";
// A navigation link that knows whether it points at the page being shown.
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

export interface NavLinkProps {
  href: string;
  /** Other path prefixes that belong to this entry, e.g. operation pages belong to the Ledger. */
  activePrefixes?: readonly string[];
  children: ReactNode;
}

function isUnder(pathname: string, prefix: string): boolean {
  if (prefix === "/") return pathname === "/";
  return pathname === prefix || pathname.startsWith(`${prefix}/`);
}

export function NavLink({ href, activePrefixes = [], children }: NavLinkProps) {
  const pathname = usePathname();
  const active = isUnder(pathname, href) || activePrefixes.some((prefix) => isUnder(pathname, prefix));
  return (
    <Link
      href={href}
      aria-current={active ? "page" : undefined}
      className={`flex items-center gap-2 rounded-md px-2.5 py-1.5 whitespace-nowrap outline-offset-0 ${
        active
          ? "bg-surface font-semibold text-ink shadow-xs ring-1 ring-line-strong"
          : "text-ink-muted hover:bg-surface/70 hover:text-ink"
      }`}
    >
      {children}
    </Link>
  );
}
