// The console's top bar: product name on the left, a note when the four-eyes rule is off, the signed-in user on the
// right.
import Link from "next/link";
import type { ReactNode } from "react";
import { FourEyesNote } from "./four-eyes-note";

export interface TopBarProps {
  /** The signed-in user's menu; empty until sign-in exists. */
  user?: ReactNode;
}

export function TopBar({ user }: TopBarProps) {
  return (
    <header className="flex h-11 shrink-0 items-center justify-between gap-4 border-b border-line bg-surface px-4">
      <Link href="/" className="flex shrink-0 items-baseline gap-2 rounded-sm">
        <span className="font-mono text-[15px] font-semibold tracking-tight text-ink">opledger</span>
        <span className="text-xs text-ink-subtle">operator console</span>
      </Link>
      <div className="flex min-w-0 flex-1 justify-center">
        <FourEyesNote />
      </div>
      <div aria-label="Signed-in user" role="group" className="flex min-w-0 items-center gap-2">
        {user}
      </div>
    </header>
  );
}
