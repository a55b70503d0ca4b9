// Frame of every console page: top bar, left navigation with queue counts, and a scrolling main area.
import type { ReactNode } from "react";
import { queueCounts } from "@/lib/console/queue-counts";
import { LiveNav } from "@/components/shell/live-nav";
import { SkipLink } from "@/components/shell/skip-link";
import { TopBar } from "@/components/shell/top-bar";
import { UserMenu } from "@/components/shell/user-menu";
import { requirePageUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { countQueues } from "@/lib/ledger/reads/operations";

const MAIN_ID = "content";

export default async function ConsoleLayout({ children }: Readonly<{ children: ReactNode }>) {
  // Nobody signed in (a cookie proxy.ts could decode, for a session since ended): the same redirect to sign-in the page
  // gives, here too, so not even the frame renders. Each page still checks by itself: a client-side navigation renders
  // the page without this layout.
  const user = await requirePageUser("viewer");
  const initialCounts = queueCounts(await countQueues(ledger()));
  return (
    <div className="flex h-dvh flex-col">
      <SkipLink targetId={MAIN_ID} />
      <TopBar user={<UserMenu />} />
      <div className="flex min-h-0 flex-1 flex-col md:flex-row">
        <aside
          className={
            "shrink-0 overflow-x-auto border-b border-line bg-surface-sunken md:w-52 md:overflow-y-auto md:border-r " +
            "md:border-b-0"
          }
        >
          <LiveNav initialCounts={initialCounts} isAdmin={user.role === "admin"} />
        </aside>
        <main id={MAIN_ID} tabIndex={-1} className="min-w-0 flex-1 overflow-y-auto focus:outline-none">
          <div className="mx-auto max-w-screen-2xl px-6 py-5">{children}</div>
        </main>
      </div>
    </div>
  );
}
