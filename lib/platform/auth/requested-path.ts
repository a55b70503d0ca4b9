// The console path a page request asked for (set by proxy.ts), so a sign-in redirect can come back to it.
import { headers } from "next/headers";

export const REQUESTED_PATH_HEADER = "x-opledger-requested-path";

/**
 * The sign-in page's address that comes back to `requested` (a path with its query) afterwards; safeCallbackUrl on
 * the sign-in page decides whether to honour it. proxy.ts and the pages build it the same way.
 */
export function signInPath(requested: string | null | undefined): string {
  return requested && requested !== "/" ? `/signin?callbackUrl=${encodeURIComponent(requested)}` : "/signin";
}

/** The sign-in page's address for the current request. */
export async function signInPathForRequest(): Promise<string> {
  return signInPath((await headers()).get(REQUESTED_PATH_HEADER));
}
