// Where to go after signing in: only a path on this console, so a crafted link cannot send someone to another site.

const DEFAULT_DESTINATION = "/";

/**
 * A same-site path from a `callbackUrl` parameter, or "/". Absolute URLs are accepted only for `origin` (next-auth
 * itself sends those) and reduced to their path; the sign-in page is never a destination, so there is no loop.
 */
export function safeCallbackUrl(raw: string | string[] | undefined, origin?: string): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return DEFAULT_DESTINATION;
  let url: URL;
  try {
    // The base only resolves relative paths; it is compared below, never navigated to.
    url = new URL(value, "http://relative.invalid");
  } catch {
    return DEFAULT_DESTINATION;
  }
  const relative = value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\");
  const sameOrigin = relative
    ? url.origin === "http://relative.invalid"
    : origin !== undefined && url.origin === origin;
  if (!sameOrigin) return DEFAULT_DESTINATION;
  if (url.pathname === "/signin" || url.pathname.startsWith("/api/auth")) return DEFAULT_DESTINATION;
  return `${url.pathname}${url.search}${url.hash}`;
}
