// Tests for error classification and Retry-After parsing: every status, every kind, and the aliases workers send.
import { describe, expect, it, test } from "vitest";
import { classifyError, outcomeOfReport, parseRetryAfter } from "./classify-error";
import { ERROR_KINDS, type ErrorClass, type ErrorKind, type ToolErrorMeaning } from "./types";

const DAY = 24 * 60 * 60 * 1000;

describe("classifyError by HTTP status", () => {
  test.each<[number, ErrorKind, ErrorClass]>([
    [429, "rate_limited", "transient"],
    [408, "timeout", "transient"],
    [500, "server_error", "transient"],
    [502, "server_error", "transient"],
    [503, "server_error", "transient"],
    [504, "server_error", "transient"],
    [599, "server_error", "transient"],
    [400, "bad_request", "fatal"],
    [401, "unauthorized", "fatal"],
    [403, "forbidden", "fatal"],
    [404, "not_found", "fatal"],
    [409, "conflict", "fatal"],
    [422, "unprocessable", "fatal"],
    [405, "bad_request", "fatal"],
    [410, "bad_request", "fatal"],
    [413, "bad_request", "fatal"],
    [451, "bad_request", "fatal"],
    [499, "bad_request", "fatal"],
  ])("status %i -> %s (%s)", (httpStatus, kind, errorClass) => {
    expect(classifyError({ httpStatus })).toEqual({ kind, errorClass, httpStatus });
  });

  test.each([200, 204, 302, 399, 600, 0, -1, 500.5, Number.NaN])(
    "status %s says nothing: unclassified",
    (httpStatus) => {
      expect(classifyError({ httpStatus })).toMatchObject({ kind: "unclassified", errorClass: "unclassified" });
    },
  );

  test("the status wins over a recognised kind", () => {
    expect(classifyError({ httpStatus: 422, kind: "timeout" })).toMatchObject({
      kind: "unprocessable",
      errorClass: "fatal",
    });
    expect(classifyError({ httpStatus: 503, kind: "validation" })).toMatchObject({
      kind: "server_error",
      errorClass: "transient",
    });
  });

  test("a status that says nothing leaves the decision to the kind", () => {
    expect(classifyError({ httpStatus: 0, kind: "ECONNRESET" })).toMatchObject({
      kind: "connection_reset",
      errorClass: "transient",
    });
  });
});

describe("classifyError by kind", () => {
  const expectedClass = (kind: ErrorKind): ErrorClass => {
    if (kind === "unclassified") return "unclassified";
    if (kind === "tool_error") return "fatal";
    return ["timeout", "connection_reset", "connection_refused", "rate_limited", "server_error"].includes(kind)
      ? "transient"
      : "fatal";
  };

  test.each(ERROR_KINDS.map((kind) => ({ kind, errorClass: expectedClass(kind) })))(
    "the kind name $kind maps to itself ($errorClass)",
    ({ kind, errorClass }) => {
      expect(classifyError({ kind })).toEqual({ kind, errorClass });
      expect(classifyError({ kind: kind.toUpperCase() })).toEqual({ kind, errorClass });
    },
  );

  test.each<[string, ErrorKind, ErrorClass]>([
    ["timeout", "timeout", "transient"],
    ["Timeout", "timeout", "transient"],
    ["ETIMEDOUT", "timeout", "transient"],
    ["ESOCKETTIMEDOUT", "timeout", "transient"],
    ["aborted", "timeout", "transient"],
    ["AbortError", "timeout", "transient"],
    ["TimeoutError", "timeout", "transient"],
    ["UND_ERR_HEADERS_TIMEOUT", "timeout", "transient"],
    ["connection_reset", "connection_reset", "transient"],
    ["ECONNRESET", "connection_reset", "transient"],
    ["EPIPE", "connection_reset", "transient"],
    ["connection-reset", "connection_reset", "transient"],
    ["connection_refused", "connection_refused", "transient"],
    ["ECONNREFUSED", "connection_refused", "transient"],
    ["rate_limited", "rate_limited", "transient"],
    ["too_many_requests", "rate_limited", "transient"],
    ["server_error", "server_error", "transient"],
    ["Service Unavailable", "server_error", "transient"],
    ["validation", "validation", "fatal"],
    ["VALIDATION", "validation", "fatal"],
    ["validation_error", "validation", "fatal"],
    ["  etimedout  ", "timeout", "transient"],
  ])("kind %j -> %s (%s)", (kind, expected, errorClass) => {
    expect(classifyError({ kind })).toEqual({ kind: expected, errorClass });
  });

  test.each(["", "boom", "ENOTFOUND", "null", "TypeError"])("unknown kind %j is unclassified", (kind) => {
    expect(classifyError({ kind })).toEqual({ kind: "unclassified", errorClass: "unclassified" });
  });

  test.each(["__proto__", "_ proto _", "constructor", "toString", "hasOwnProperty"])(
    "a kind named like an Object property (%s) is unclassified, not a crash",
    (kind) => {
      expect(classifyError({ kind })).toEqual({ kind: "unclassified", errorClass: "unclassified" });
    },
  );

  test("nothing at all is unclassified", () => {
    expect(classifyError({})).toEqual({ kind: "unclassified", errorClass: "unclassified" });
  });
});

describe("classifyError keeps what the gate and the console need", () => {
  test("status, message and Retry-After are kept", () => {
    expect(classifyError({ httpStatus: 429, message: "slow down", retryAfterMs: 2000 })).toEqual({
      kind: "rate_limited",
      errorClass: "transient",
      httpStatus: 429,
      message: "slow down",
      retryAfterMs: 2000,
    });
  });

  test.each([-1, Number.NaN, Number.POSITIVE_INFINITY])("a Retry-After of %s is dropped", (retryAfterMs) => {
    expect(classifyError({ kind: "timeout", retryAfterMs })).not.toHaveProperty("retryAfterMs");
  });

  test("a Retry-After of 0 is kept", () => {
    expect(classifyError({ kind: "timeout", retryAfterMs: 0 }).retryAfterMs).toBe(0);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);

  test.each<[string, number]>([
    ["0", 0],
    ["1", 1000],
    ["120", 120_000],
    [" 5 ", 5000],
    ["1.5", 1500],
    ["86400", DAY],
    ["86401", DAY],
    ["999999999999", DAY],
  ])("delta-seconds %j -> %i ms", (header, ms) => {
    expect(parseRetryAfter(header, now)).toBe(ms);
  });

  test("IMF-fixdate in the future", () => {
    expect(parseRetryAfter("Thu, 15 Jan 2026 12:00:30 GMT", now)).toBe(30_000);
  });

  test("obsolete RFC 850 and asctime dates are still read", () => {
    expect(parseRetryAfter("Thursday, 15-Jan-26 12:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Thu Jan 15 12:00:10 2026", now)).toBe(10_000);
    expect(parseRetryAfter("Thu Jan  5 12:00:00 2026", Date.UTC(2026, 0, 5, 11, 59, 0))).toBe(60_000);
  });

  test("a date in the past means now, never a negative wait", () => {
    expect(parseRetryAfter("Wed, 14 Jan 2026 12:00:00 GMT", now)).toBe(0);
  });

  test("a date more than a day away is capped at 24 h", () => {
    expect(parseRetryAfter("Sat, 17 Jan 2026 12:00:00 GMT", now)).toBe(DAY);
  });

  test.each([
    null,
    undefined,
    "",
    "   ",
    "-5",
    "soon",
    "1e3",
    "5s",
    "Thu, 31 Feb 2026 12:00:00 GMT",
    "Thu, 15 Jan 2026 25:00:00 GMT",
    "2026-01-15T12:00:30Z",
    "Thu, 15 Jan 2026 12:00:30",
  ])("%j is unparseable", (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});

describe("a tool's error answer", () => {
  test.each<[ToolErrorMeaning, ErrorClass, "failed" | "unknown"]>([
    ["fatal", "fatal", "failed"],
    ["transient", "transient", "failed"],
    ["unknown", "fatal", "unknown"],
  ])("under toolError %s is %s and its outcome %s", (toolError, errorClass, outcome) => {
    const error = classifyError({ kind: "tool_error", message: "refused" }, toolError);
    expect(error).toEqual({ kind: "tool_error", errorClass, message: "refused" });
    expect(outcomeOfReport("failed", error, toolError)).toBe(outcome);
  });

  it("leaves every other report as it was, whatever the contract says", () => {
    const timeout = classifyError({ kind: "timeout" }, "unknown");
    expect(timeout.errorClass).toBe("transient");
    expect(outcomeOfReport("failed", timeout, "unknown")).toBe("failed");
    expect(outcomeOfReport("confirmed", null, "unknown")).toBe("confirmed");
  });
});
