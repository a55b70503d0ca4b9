// The console's top bar: product name on the left, the search box, a note when the four-eyes rule is off, the
// signed-in user on the right; the keyboard shortcuts ride along, mounted once with the bar on every page.
import Link from "next/link";
import { Suspense, type ReactNode } from "react";
import { FourEyesNote } from "./four-eyes-note";
import { KeyboardShortcuts } from "./keyboard-shortcuts";
import { SearchBox } from "./search-box";

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
      <div className="flex min-w-0 flex-1 items-center justify-center gap-4">
        {/* useSearchParams needs a Suspense boundary so the rest of the page still renders statically. */}
        <Suspense fallback={null}>
          <SearchBox />
        </Suspense>
        <FourEyesNote />
      </div>
      <div aria-label="Signed-in user" role="group" className="flex min-w-0 items-center gap-2">
        {user}
      </div>
      <KeyboardShortcuts />
    </header>
  );
}
