// What opledger adds to next-auth's types: the session claims (user id and session version) in the token and the
// session, and the session version on the user a credentials sign-in returns.
import "next-auth";
import "next-auth/jwt";

declare module "next-auth" {
  interface User {
    sessionVersion?: number;
  }
  interface Session {
    userId?: string;
    sessionVersion?: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    userId?: string;
    sessionVersion?: number;
  }
}
