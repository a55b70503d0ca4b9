import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shortenId } from "./shorten-id";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

describe("shortenId", () => {
  it("keeps an id that fits, and shortens a longer one in the middle", () => {
    expect(shortenId("01J9ZQ3K", 12)).toBe("01J9ZQ3K");
    expect(shortenId("01J9ZQ3KXA7M2V0CQ8", 12)).toBe("01J9ZQ3K…CQ8");
  });

  it("never cuts a character outside the Basic Multilingual Plane in half", () => {
    // Seven astral characters are 14 UTF-16 units: a cut by units left a lone surrogate, which broke hydration.
    const agent = "\u{d3120}\u{367e6}\u{47d18}\u{10cbcc}\u{dca40}\u{b35dd}\u{d8ef0}";
    expect(shortenId(agent, 12)).toBe(agent);
    const longer = "𝕏".repeat(20);
    expect(shortenId(longer, 12)).toBe(`${"𝕏".repeat(8)}…${"𝕏".repeat(3)}`);
  });

  it("gives well-formed text of at most maxChars characters that starts and ends like the id", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), fc.integer({ min: 4, max: 30 }), (id, max) => {
        const shown = shortenId(id, max);
        expect(wellFormed(shown)).toBe(wellFormed(id));
        expect(Array.from(shown).length).toBeLessThanOrEqual(max);
        if (shown !== id) {
          const [head, tail] = shown.split("…");
          expect(id.startsWith(head!)).toBe(true);
          expect(id.endsWith(tail!)).toBe(true);
        }
      }),
    );
  });
});
