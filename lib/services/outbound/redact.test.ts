// The secret out of text: as sent, its token alone, URL-encoded and JSON-escaped, and the start of it at a cut end.
import { describe, expect, it } from "vitest";
import { REDACTED, redact } from "./redact";

const SECRET = 'Bearer sk_live_ab/cd+ef"gh';

describe("redact", () => {
  it.each([
    ["as sent", `auth=${SECRET}!`],
    ["the token alone", 'token=sk_live_ab/cd+ef"gh!'],
    ["URL-encoded", `u=${encodeURIComponent(SECRET)}!`],
    ["the token URL-encoded", `u=${encodeURIComponent('sk_live_ab/cd+ef"gh')}!`],
    ["JSON-escaped", JSON.stringify({ echoed: SECRET })],
  ])("takes out the secret %s", (_name, text) => {
    const out = redact(text, SECRET);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain("sk_live_ab");
  });

  it("takes the start of the secret off a text that was cut", () => {
    expect(redact("answer: sk_live_a", SECRET, true)).toBe(`answer: ${REDACTED}`);
    expect(redact("answer: sk_live_a", SECRET, false)).toBe("answer: sk_live_a");
  });

  it("leaves text alone without a secret, and short tokens are not hunted on their own", () => {
    expect(redact("nothing to hide", null)).toBe("nothing to hide");
    expect(redact("x marks the spot", "Bearer x")).toBe("x marks the spot");
    expect(redact("sent Bearer x", "Bearer x")).toBe(`sent ${REDACTED}`);
  });
});
