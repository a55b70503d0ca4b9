// next-auth's sign-in, sign-out and session endpoints; a POST from another site is refused before next-auth sees it.
import NextAuth from "next-auth";
import { crossSiteRefusal } from "@/lib/platform/http/same-origin";
import { authOptions } from "@/lib/platform/auth/auth-options";

const handler = NextAuth(authOptions) as (req: Request, ctx: unknown) => Promise<Response>;

/**
 * Sign-in and sign-out set the session cookie: next-auth's CSRF token is the second line, the Origin check the first.
 */
async function POST(req: Request, ctx: unknown): Promise<Response> {
  return crossSiteRefusal(req) ?? handler(req, ctx);
}

export { handler as GET, POST };
