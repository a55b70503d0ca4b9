// The sign-in callback: a path on this console or "/", for every form the red team sent and for any string at all.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeCallbackUrl } from "./callback-url";

const ORIGIN = "http://console.example:3000";
const BASE = "http://base.invalid";

/** What a browser does with the answer: it must stay on the page's own origin. */
function staysHome(path: string): boolean {
  return new URL(path, BASE).origin === BASE && new URL(path, ORIGIN).origin === ORIGIN;
}

describe("safeCallbackUrl", () => {
  it.each([
    "/./\u002f/evil.example",
    "/.//evil.example",
    "/..//evil.example",
    "/a/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2E//evil.example",
    "/a/%2e%2e//evil.example",
    "//evil.example",
    "/\\evil.example",
    "/\\/evil.example",
    "\\\\evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "https://evil.example/",
    "http://evil.example//console.example:3000",
    `${ORIGIN}//evil.example`,
    `${ORIGIN}/.//evil.example`,
    `${ORIGIN}/a/..//evil.example`,
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    " //evil.example",
  ])("refuses %j: the answer is the start page", (raw) => {
    expect(safeCallbackUrl(raw, ORIGIN)).toBe("/");
    expect(safeCallbackUrl(raw)).toBe("/");
  });

  it.each([
    ["/operations?phase=UNKNOWN", "/operations?phase=UNKNOWN"],
    ["/operations/abc#audit", "/operations/abc#audit"],
    ["/a/../operations", "/operations"],
    [`${ORIGIN}/approvals`, "/approvals"],
    ["/?next=//evil.example", "/?next=//evil.example"],
  ])("keeps the console path %j", (raw, expected) => {
    expect(safeCallbackUrl(raw, ORIGIN)).toBe(expected);
  });

  it("never returns the sign-in page or next-auth's routes", () => {
    for (const raw of ["/signin", "/signin?callbackUrl=%2Fa", "/api/auth/signout", `${ORIGIN}/api/auth/session`]) {
      expect(safeCallbackUrl(raw, ORIGIN)).toBe("/");
    }
  });

  it("answers every string with a path of this origin: never `//` or `/\\` first, never a scheme or a host", () => {
    const pieces = fc.constantFrom(
      "/",
      "//",
      "\\",
      ".",
      "..",
      "%2e",
      "%2E",
      "%2f",
      "%5c",
      "\t",
      "\n",
      " ",
      "evil.example",
      "http:",
      "https://",
      ORIGIN,
      "?",
      "#",
      "@",
      ":",
      "a",
    );
    const hostile = fc.oneof(
      fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join("")),
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
    );
    fc.assert(
      fc.property(hostile, fc.boolean(), (raw, withOrigin) => {
        const answer = safeCallbackUrl(raw, withOrigin ? ORIGIN : undefined);
        expect(answer.startsWith("/")).toBe(true);
        expect(answer.startsWith("//")).toBe(false);
        expect(answer.startsWith("/\\")).toBe(false);
        expect(/^[a-z][a-z0-9+.-]*:/i.test(answer)).toBe(false);
        expect(staysHome(answer)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});
