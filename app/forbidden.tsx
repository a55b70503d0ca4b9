// Shown with a 403 when a signed-in person opens a page their role does not allow (forbidden() in the page): which role
// it needs, who they are, and whom to ask.
import type { Metadata } from "next";
import { headers } from "next/headers";
import { Forbidden } from "@/components/auth/forbidden";
import { REQUESTED_PATH_HEADER } from "@/lib/platform/auth/requested-path";
import { currentUser } from "@/lib/platform/auth/session";

export const metadata: Metadata = { title: "Forbidden" };

/** What each admin-only page is for, by the path proxy.ts recorded; every page that calls forbidden() needs admin. */
const PURPOSES: readonly [RegExp, string][] = [
  [/^\/admin(\/|$)/, "Managing users and API keys"],
  [/^\/contracts\/new$/, "Creating tool contracts"],
  [/^\/contracts\/[^/]+\/edit$/, "Editing tool contracts"],
];

export default async function ForbiddenPage() {
  const requested = (await headers()).get(REQUESTED_PATH_HEADER) ?? "";
  const pathname = requested.split("?")[0] ?? "";
  const what = PURPOSES.find(([pattern]) => pattern.test(pathname))?.[1] ?? "This page";
  // Next.js renders this inside the innermost layout, the console frame for a console page, so it brings no <main>.
  return <Forbidden needed="admin" what={what} user={await currentUser()} />;
}
