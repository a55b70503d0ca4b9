// Frame of every console page: top bar, left navigation with queue counts, and a scrolling main area.
import type { ReactNode } from "react";
import { Nav } from "@/components/shell/nav";
import { SkipLink } from "@/components/shell/skip-link";
import { TopBar } from "@/components/shell/top-bar";

const MAIN_ID = "content";

export default function ConsoleLayout({ children }: Readonly<{ children: ReactNode }>) {
  return (
    <div className="flex h-dvh flex-col">
      <SkipLink targetId={MAIN_ID} />
      <TopBar />
      <div className="flex min-h-0 flex-1 flex-col md:flex-row">
        <aside className="shrink-0 overflow-x-auto border-b border-line bg-surface-sunken md:w-52 md:overflow-y-auto md:border-r md:border-b-0">
          {/* Counts are wired to the ledger later; until then no badge is shown. */}
          <Nav unknownCount={undefined} approvalCount={undefined} />
        </aside>
        <main id={MAIN_ID} tabIndex={-1} className="min-w-0 flex-1 overflow-y-auto focus:outline-none">
          <div className="mx-auto max-w-screen-2xl px-6 py-5">{children}</div>
        </main>
      </div>
    </div>
  );
}
