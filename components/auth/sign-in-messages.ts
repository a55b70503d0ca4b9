// What the sign-in page says for each error next-auth reports, in words that say what to do; never whether an email
// exists.

export const LOCKED_MESSAGE = "Too many failed attempts; try again in 15 minutes.";
export const INVALID_MESSAGE = "The email or password is wrong.";
export const UNREACHABLE_MESSAGE = "The console server could not be reached. Check your connection and try again.";

/** `code` is the provider's thrown message ("invalid", "locked") or one of next-auth's error codes. */
export function signInErrorMessage(code: string): string {
  switch (code) {
    case "locked":
      return LOCKED_MESSAGE;
    case "invalid":
    case "CredentialsSignin":
      return INVALID_MESSAGE;
    case "AccessDenied":
      return "This account may not sign in to the console. Ask an admin to create a user with your email, or to enable it.";
    case "SessionRequired":
      return "Sign in to continue.";
    case "OAuthSignin":
    case "OAuthCallback":
    case "OAuthCreateAccount":
    case "OAuthAccountNotLinked":
    case "Callback":
      return "Single sign-on did not complete. Try again, or sign in with your email and password.";
    default:
      return "Signing in failed on the server. Try again; if it keeps failing, tell whoever runs opledger.";
  }
}
