// The console path a page request asked for (set by proxy.ts), so a sign-in redirect can come back to it.
import { headers } from "next/headers";

export const REQUESTED_PATH_HEADER = "x-opledger-requested-path";

/**
 * The sign-in page's address for the current request; safeCallbackUrl on the sign-in page decides whether to honour it.
 */
export async function signInPathForRequest(): Promise<string> {
  const requested = (await headers()).get(REQUESTED_PATH_HEADER);
  return requested && requested !== "/" ? `/signin?callbackUrl=${encodeURIComponent(requested)}` : "/signin";
}
