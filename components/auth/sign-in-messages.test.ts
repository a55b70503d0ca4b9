// The sign-in page says what to do next for each error, and never whether an email has an account.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INVALID_MESSAGE, LOCKED_MESSAGE, signInErrorMessage } from "./sign-in-messages";

describe("signInErrorMessage", () => {
  it("says the same for a wrong password and an unknown email, from the provider or from next-auth", () => {
    expect(signInErrorMessage("invalid")).toBe(INVALID_MESSAGE);
    expect(signInErrorMessage("CredentialsSignin")).toBe(INVALID_MESSAGE);
    expect(INVALID_MESSAGE).toBe("The email or password is wrong.");
  });

  it("tells a locked account when to try again", () => {
    expect(signInErrorMessage("locked")).toBe(LOCKED_MESSAGE);
    expect(LOCKED_MESSAGE).toMatch(/try again in 15 minutes/);
  });

  it.each([
    ["AccessDenied", /Ask an admin/],
    ["SessionRequired", /^Sign in to continue\.$/],
    ["OAuthCallback", /Single sign-on did not complete/],
    ["OAuthAccountNotLinked", /Single sign-on did not complete/],
    ["Configuration", /failed on the server/],
  ])("%s: %s", (code, text) => {
    expect(signInErrorMessage(code)).toMatch(text);
  });

  it("answers any other code with a sentence that does not repeat it", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z]{12,30}$/), (code) => {
        const text = signInErrorMessage(code);
        expect(text).toMatch(/^[A-Z].*\.$/);
        expect(text).not.toContain(code);
      }),
    );
  });
});
