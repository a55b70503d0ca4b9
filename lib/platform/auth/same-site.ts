// Whether a request that changes something came from another site: the one rule for server actions (session.ts,
// proxy.ts) and cookie-authenticated routes (lib/platform/http/same-origin.ts).

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function firstValue(header: string | null): string | null {
  const value = header?.split(",")[0]?.trim();
  return value ? value : null;
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/**
 * Whether a request that changes something was sent by another site: the browser marks it `Sec-Fetch-Site:
 * cross-site` or `same-site` (another host of the same site, such as a sibling subdomain), with or without an Origin;
 * or its Origin names another host than Host (or X-Forwarded-Host), or is "null" as from a sandboxed frame or a
 * redirect chain. Same rule as Next.js applies to server actions' Origin, plus Sec-Fetch-Site, which Next.js ignores.
 * A request with neither header is not from a browser, so it carries no cookie the sender was not given: it passes.
 * GET, HEAD and OPTIONS change nothing and always pass.
 */
export function sentFromAnotherSite(method: string, headers: Pick<Headers, "get">): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return false;
  const site = headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return true;
  const origin = headers.get("origin");
  if (origin === null) return false;
  const host = originHost(origin);
  const allowed = [firstValue(headers.get("host")), firstValue(headers.get("x-forwarded-host"))];
  return host === null || !allowed.includes(host);
}
