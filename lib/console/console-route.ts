// Route handlers the console's ledger components poll (cookie session, not API keys): same-site and role checked
// inside, problems as JSON.
import type { Role } from "@/lib/platform/auth/roles";
import { requireUser, UnauthenticatedError, type SessionUser } from "@/lib/platform/auth/session";
import { ledger, type Ledger } from "@/lib/ledger/ledger";
import { problem, titleFor } from "@/lib/platform/http/problem";
import { errorResponse } from "@/lib/platform/http/error-reply";
import { crossSiteRefusal } from "@/lib/platform/http/same-origin";

export interface ConsoleContext<P> {
  req: Request;
  params: P;
  user: SessionUser;
  ledger: Ledger;
  now: Date;
}

export function consoleRoute<P = Record<string, never>>(
  role: Role,
  handler: (ctx: ConsoleContext<P>) => Promise<Response>,
) {
  return async (req: Request, context: { params: Promise<P> }): Promise<Response> => {
    const refused = crossSiteRefusal(req);
    if (refused) return refused;
    try {
      const user = await requireUser(role);
      return await handler({ req, params: await context.params, user, ledger: ledger(), now: new Date() });
    } catch (error) {
      if (error instanceof UnauthenticatedError) {
        return problem({ status: 401, code: "unauthenticated", title: titleFor(401), detail: error.message });
      }
      return errorResponse(error);
    }
  };
}
