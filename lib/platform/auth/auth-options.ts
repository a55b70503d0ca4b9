// next-auth configuration: credentials sign-in (optional OIDC from env), JWT sessions in httpOnly SameSite=Lax cookies
// that carry the user's session version, and a sign-out that ends every session of the person.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { ledger } from "@/lib/ledger/ledger";
import { ensureStarted } from "@/lib/platform/server/startup";
import { safeCallbackUrl } from "./callback-url";
import { clientAddress } from "./client-address";
import { env } from "@/lib/platform/config/env";
import { endSessionsAtSignOut, sessionClaimsOf, sessionPerson, type SessionClaims } from "./session-version";
import { signInWithPassword } from "./sign-in";
import { acceptSsoIdentity, ssoIdentityOf, ssoSessionClaims } from "./single-sign-on";

const SESSION_MAX_AGE_S = 8 * 60 * 60;

function oidcProvider(): NextAuthOptions["providers"] {
  const {
    OPLEDGER_OIDC_ISSUER: issuer,
    OPLEDGER_OIDC_CLIENT_ID: clientId,
    OPLEDGER_OIDC_CLIENT_SECRET: clientSecret,
    OPLEDGER_OIDC_NAME: name,
  } = env();
  if (!issuer || !clientId || !clientSecret) return [];
  return [
    {
      id: "oidc",
      name: name ?? "Single sign-on",
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

/** One header of next-auth's request, which arrives as a plain object of lower-case names. */
function headerOf(headers: Record<string, unknown> | undefined, name: string): string | null {
  const value = headers?.[name];
  return typeof value === "string" ? value : null;
}

/** The claims for a new token: from the credentials sign-in's user, or from the identity single sign-on just bound. */
async function signInClaims(provider: string, user: { id: string; sessionVersion?: number }, profile: unknown) {
  if (provider !== "oidc") return sessionClaimsOf({ userId: user.id, sessionVersion: user.sessionVersion });
  const identity = ssoIdentityOf(profile);
  return "refused" in identity ? null : ssoSessionClaims(ledger(), identity);
}

export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
  pages: { signIn: "/signin" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, req) {
        if (!credentials?.email || !credentials.password) return null;
        await ensureStarted();
        // X-Forwarded-For, read past the proxies the deployment says it has (client-address.ts tells why).
        const address = clientAddress(headerOf(req.headers, "x-forwarded-for"), env().OPLEDGER_TRUSTED_PROXIES);
        const result = await signInWithPassword(
          ledger(),
          { email: credentials.email, password: credentials.password, clientAddress: address },
          new Date(),
        );
        // "locked" and "invalid" say nothing about whether the account exists: an unknown email is locked the same way.
        if (!result.ok) throw new Error(result.reason);
        const { id, email, name, sessionVersion } = result.user;
        return { id, email, name, sessionVersion };
      },
    }),
    ...oidcProvider(),
  ],
  callbacks: {
    // Single sign-on: a verified email of an enabled console user, bound to this issuer and subject on first use.
    async signIn({ account, profile }) {
      if (account?.provider !== "oidc") return true;
      const identity = ssoIdentityOf(profile);
      if ("refused" in identity) return false;
      await ensureStarted();
      const outcome = await acceptSsoIdentity(ledger(), identity, new Date());
      return outcome.ok;
    },
    // At sign-in the token gets the user's id and session version; afterwards it keeps them as issued, and
    // currentUser() compares them with the user's on every request.
    async jwt({ token, user, account, profile }) {
      if (!account) return token;
      const claims: SessionClaims | null = await signInClaims(account.provider, user, profile);
      return { ...token, userId: claims?.userId, sessionVersion: claims?.sessionVersion };
    },
    // Every address next-auth sends a browser to (a callbackUrl of its sign-in and sign-out routes): a path on this
    // console or its start page, never another site.
    redirect({ url, baseUrl }) {
      return `${baseUrl}${safeCallbackUrl(url, baseUrl)}`;
    },
    // The session endpoint (/api/auth/session, and getServerSession behind currentUser) answers only for a session
    // that has not ended: an ended one gets next-auth's empty answer, `{}`, which its client reads as signed out.
    async session({ session, token }) {
      const claims = sessionClaimsOf(token);
      if (!(await sessionPerson(ledger(), claims))) return {} as typeof session;
      return { ...session, userId: claims?.userId, sessionVersion: claims?.sessionVersion };
    },
  },
  events: {
    // Signing out signs the person out everywhere: raising the version ends their sessions in other browsers too.
    async signOut({ token }) {
      const claims = sessionClaimsOf(token);
      if (!claims) return;
      await ensureStarted();
      await endSessionsAtSignOut(ledger(), claims, new Date());
    },
  },
};
