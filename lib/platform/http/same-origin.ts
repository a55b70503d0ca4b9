// Cross-site refusal for cookie-authenticated routes: a state-changing request must come from the console's own origin.
import { sentFromAnotherSite } from "@/lib/platform/auth/same-site";
import { problem, titleFor } from "./problem";

export const CROSS_SITE_DETAIL =
  "This request came from another site; the console only accepts changes sent from its own pages.";

/** A 403 problem for a request sentFromAnotherSite, else null. */
export function crossSiteRefusal(req: Request): Response | null {
  if (!sentFromAnotherSite(req.method, req.headers)) return null;
  return problem({ status: 403, code: "cross_site_request", title: titleFor(403), detail: CROSS_SITE_DETAIL });
}
