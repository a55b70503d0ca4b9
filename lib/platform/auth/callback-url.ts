// Where to go after signing in: a path on this console or nowhere, so a crafted link cannot send someone to another
// site. The sign-in page and next-auth's own redirects (auth-options.ts) both go through it.

const DEFAULT_DESTINATION = "/";

/** The base relative paths are resolved against; compared, never navigated to. */
const RELATIVE_BASE = "http://relative.invalid";

/**
 * A path on this console from a `callbackUrl` parameter, or "/". Absolute URLs are accepted only for `origin`
 * (next-auth itself sends those) and reduced to their path. The path is the one a browser would go to, after
 * resolving dot segments and backslashes: one that starts with `//` (`/.//evil.example`, `/%2e//`, `/a/..//`) would
 * be read as another host, so it is refused, never returned. The sign-in page and next-auth's routes are never a
 * destination, so there is no loop.
 */
export function safeCallbackUrl(raw: string | string[] | undefined, origin?: string): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return DEFAULT_DESTINATION;
  let url: URL;
  try {
    url = new URL(value, RELATIVE_BASE);
  } catch {
    return DEFAULT_DESTINATION;
  }
  const relative = value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\");
  const sameOrigin = relative ? url.origin === RELATIVE_BASE : origin !== undefined && url.origin === origin;
  if (!sameOrigin) return DEFAULT_DESTINATION;
  const { pathname } = url;
  if (!pathname.startsWith("/") || pathname.startsWith("//") || pathname.startsWith("/\\")) return DEFAULT_DESTINATION;
  if (pathname === "/signin" || pathname.startsWith("/api/auth")) return DEFAULT_DESTINATION;
  const path = `${pathname}${url.search}${url.hash}`;
  // What a browser makes of it must still be this origin, whatever a parser quirk above let through.
  return new URL(path, RELATIVE_BASE).origin === RELATIVE_BASE ? path : DEFAULT_DESTINATION;
}
