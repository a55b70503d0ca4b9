// next-auth configuration: credentials sign-in (optional OIDC from env), JWT sessions in httpOnly SameSite=Lax cookies.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { ledger } from "@/lib/ledger/ledger";
import { ensureStarted } from "@/lib/server/startup";
import { signInWithPassword } from "./sign-in";

const SESSION_MAX_AGE_S = 8 * 60 * 60;

function oidcProvider(): NextAuthOptions["providers"] {
  const issuer = process.env.OPLEDGER_OIDC_ISSUER;
  const clientId = process.env.OPLEDGER_OIDC_CLIENT_ID;
  const clientSecret = process.env.OPLEDGER_OIDC_CLIENT_SECRET;
  if (!issuer || !clientId || !clientSecret) return [];
  return [
    {
      id: "oidc",
      name: process.env.OPLEDGER_OIDC_NAME ?? "Single sign-on",
      type: "oauth",
      wellKnown: `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
      clientId,
      clientSecret,
      idToken: true,
      checks: ["pkce", "state"],
      authorization: { params: { scope: "openid email profile" } },
      profile(profile: { sub: string; email?: string; name?: string }) {
        return { id: profile.sub, email: profile.email ?? null, name: profile.name ?? profile.email ?? profile.sub };
      },
    },
  ];
}

export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
  pages: { signIn: "/signin" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        if (!credentials?.email || !credentials.password) return null;
        await ensureStarted();
        const result = await signInWithPassword(ledger(), credentials.email, credentials.password, new Date());
        if (!result.ok) throw new Error(result.reason === "locked" ? "locked" : "invalid");
        return { id: result.user.id, email: result.user.email, name: result.user.name };
      },
    }),
    ...oidcProvider(),
  ],
  callbacks: {
    // Only an email that belongs to a console user may sign in through OIDC: roles live in opledger, not in the IdP.
    async signIn({ user, account }) {
      if (account?.provider !== "oidc") return true;
      if (!user.email) return false;
      const known = await ledger().db.user.findUnique({ where: { email: user.email.toLowerCase() } });
      return Boolean(known && !known.disabledAt);
    },
  },
};
