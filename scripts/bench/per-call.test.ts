import { describe, expect, it } from "vitest";
import { perCall } from "./per-call";

describe("perCall", () => {
  it("divides each counter's growth by the number of calls, a counter absent before counting from 0", () => {
    expect(perCall({ commits: 10, fsyncs: 4 }, { commits: 410, fsyncs: 54, records: 800 }, 400)).toEqual({
      commits: 1,
      fsyncs: 0.125,
      records: 2,
    });
  });

  it("refuses zero calls rather than dividing by it", () => {
    expect(() => perCall({}, { commits: 1 }, 0)).toThrow(/at least one call/);
  });
});
