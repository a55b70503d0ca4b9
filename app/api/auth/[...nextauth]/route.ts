// next-auth's sign-in, sign-out and session endpoints.
import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/auth-options";

const handler = NextAuth(authOptions) as (req: Request, ctx: unknown) => Promise<Response>;

export { handler as GET, handler as POST };
