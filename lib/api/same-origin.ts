// Cross-site refusal for cookie-authenticated routes: a state-changing request must come from the console's own origin.
import { problem, titleFor } from "./problem";

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
 * A 403 problem for a POST/PUT/PATCH/DELETE sent by another site (its Origin names another host, or is "null" as from
 * a sandboxed frame or a redirect chain), else null. Same rule as Next.js applies to server actions: the Origin must
 * match the Host (or X-Forwarded-Host) header. A request without Origin is not from a browser, so it carries no
 * cookie the sender was not given; it passes, as it does for server actions.
 */
export function crossSiteRefusal(req: Request): Response | null {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return null;
  const origin = req.headers.get("origin");
  const crossSite = req.headers.get("sec-fetch-site") === "cross-site";
  if (origin === null && !crossSite) return null;
  const host = origin === null ? null : originHost(origin);
  const allowed = [firstValue(req.headers.get("host")), firstValue(req.headers.get("x-forwarded-host"))];
  if (!crossSite && host !== null && allowed.includes(host)) return null;
  return problem({
    status: 403,
    code: "cross_site_request",
    title: titleFor(403),
    detail: "This request came from another site; the console only accepts changes sent from its own pages.",
  });
}
