// Turns an error as a worker reports it into a kind and a class (transient, fatal, unclassified) the gate can rely on.
import { assertNever } from "./exhaustive";
import {
  ERROR_KINDS,
  type ClassifiedError,
  type ErrorClass,
  type ErrorKind,
  type ReportedError,
  type ToolErrorMeaning,
} from "./types";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Spellings that workers, Node and undici use for the same failure. Keys are normalised
 * (lower case, `-` and spaces as `_`), so "ETIMEDOUT" and "Connection-Reset" both match.
 */
const KIND_ALIASES: Readonly<Record<string, ErrorKind>> = {
  etimedout: "timeout",
  esockettimedout: "timeout",
  timed_out: "timeout",
  timeouterror: "timeout",
  aborted: "timeout",
  aborterror: "timeout",
  und_err_connect_timeout: "timeout",
  und_err_headers_timeout: "timeout",
  und_err_body_timeout: "timeout",
  econnreset: "connection_reset",
  epipe: "connection_reset",
  econnaborted: "connection_reset",
  und_err_socket: "connection_reset",
  econnrefused: "connection_refused",
  rate_limit: "rate_limited",
  too_many_requests: "rate_limited",
  internal_server_error: "server_error",
  service_unavailable: "server_error",
  bad_gateway: "server_error",
  validation_error: "validation",
};

function isErrorKind(value: string): value is ErrorKind {
  return (ERROR_KINDS as readonly string[]).includes(value);
}

function kindFromString(kind: string | undefined): ErrorKind | undefined {
  if (typeof kind !== "string") return undefined;
  const normalised = kind
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  if (isErrorKind(normalised)) return normalised;
  // Own keys only: "constructor" or "__proto__" from a worker must not reach Object.prototype.
  return Object.hasOwn(KIND_ALIASES, normalised) ? KIND_ALIASES[normalised] : undefined;
}

/** Only 4xx and 5xx say anything about retrying; other statuses are treated as if absent. */
function kindFromStatus(status: number | undefined): ErrorKind | undefined {
  if (typeof status !== "number" || !Number.isInteger(status)) return undefined;
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 408:
      return "timeout";
    case 409:
      return "conflict";
    case 422:
      return "unprocessable";
    case 429:
      return "rate_limited";
  }
  if (status >= 500 && status <= 599) return "server_error";
  // A 4xx we have no name for still means the provider refused this request as sent.
  if (status >= 400 && status <= 499) return "bad_request";
  return undefined;
}

/** `toolError`: the contract's meaning of a tool's error answer; only the kind tool_error reads it. */
export function errorClassOf(kind: ErrorKind, toolError: ToolErrorMeaning = "fatal"): ErrorClass {
  switch (kind) {
    case "tool_error":
      // "unknown" is not a class of failure but another outcome (outcomeOfReport); as a class it stops like fatal.
      return toolError === "transient" ? "transient" : "fatal";
    case "timeout":
    case "connection_reset":
    case "connection_refused":
    case "rate_limited":
    case "server_error":
      return "transient";
    case "bad_request":
    case "unauthorized":
    case "forbidden":
    case "not_found":
    case "conflict":
    case "unprocessable":
    case "validation":
      return "fatal";
    case "unclassified":
      return "unclassified";
    default:
      return assertNever(kind, "error kind");
  }
}

export function classifyError(e: ReportedError, toolError: ToolErrorMeaning = "fatal"): ClassifiedError {
  // The status is what the provider said; a worker's kind string is a guess about a lower layer.
  const kind = kindFromStatus(e.httpStatus) ?? kindFromString(e.kind) ?? "unclassified";
  const classified: ClassifiedError = { kind, errorClass: errorClassOf(kind, toolError) };
  if (typeof e.httpStatus === "number" && Number.isFinite(e.httpStatus)) classified.httpStatus = e.httpStatus;
  if (typeof e.message === "string") classified.message = e.message;
  if (typeof e.retryAfterMs === "number" && Number.isFinite(e.retryAfterMs) && e.retryAfterMs >= 0) {
    classified.retryAfterMs = e.retryAfterMs;
  }
  return classified;
}

/**
 * The outcome a report stands for: a failure with a tool's error answer is an unknown outcome when the contract says a
 * failed call may still have had its effect (`toolError: "unknown"`).
 */
export function outcomeOfReport<R extends "confirmed" | "failed" | "unknown">(
  result: R,
  error: ClassifiedError | null,
  toolError: ToolErrorMeaning,
): R | "unknown" {
  return result === "failed" && error?.kind === "tool_error" && toolError === "unknown" ? "unknown" : result;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY_NAMES = "(?:mon|tue|wed|thu|fri|sat|sun)";
const LONG_DAY_NAMES = "(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)";
const MONTH_NAMES = "(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)";
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
// RFC 9110 section 5.6.7: IMF-fixdate, then the two obsolete forms a recipient must still accept.
const IMF_FIXDATE = new RegExp(`^${DAY_NAMES}, (\\d{2}) ${MONTH_NAMES} (\\d{4}) ${TIME} GMT$`, "i");
const RFC850_DATE = new RegExp(`^${LONG_DAY_NAMES}, (\\d{2})-${MONTH_NAMES}-(\\d{2}) ${TIME} GMT$`, "i");
const ASCTIME_DATE = new RegExp(`^${DAY_NAMES} ${MONTH_NAMES} ([ \\d]\\d) ${TIME} (\\d{4})$`, "i");

function utcMillis(year: number, monthName: string, day: number, h: number, m: number, s: number): number | undefined {
  const month = MONTHS.indexOf(monthName.toLowerCase());
  if (month < 0 || h > 23 || m > 59 || s > 60) return undefined;
  const ms = Date.UTC(year, month, day, h, m, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March; a header that says 31 Feb is malformed, not March.
  const check = new Date(ms);
  if (check.getUTCMonth() !== month || check.getUTCDate() !== day) return undefined;
  return ms;
}

/** Parsed by hand because Date.parse accepts engine-specific formats and would make the gate non-portable. */
function parseHttpDate(value: string): number | undefined {
  let match = IMF_FIXDATE.exec(value);
  if (match) {
    const [, d, mon, y, h, m, s] = match;
    return utcMillis(Number(y), mon ?? "", Number(d), Number(h), Number(m), Number(s));
  }
  match = RFC850_DATE.exec(value);
  if (match) {
    const [, d, mon, yy, h, m, s] = match;
    const twoDigit = Number(yy);
    return utcMillis(
      twoDigit < 70 ? 2000 + twoDigit : 1900 + twoDigit,
      mon ?? "",
      Number(d),
      Number(h),
      Number(m),
      Number(s),
    );
  }
  match = ASCTIME_DATE.exec(value);
  if (match) {
    const [, mon, d, h, m, s, y] = match;
    return utcMillis(Number(y), mon ?? "", Number((d ?? "").trim()), Number(h), Number(m), Number(s));
  }
  return undefined;
}

/**
 * Retry-After as milliseconds from `now`. A date in the past means "now" (0); anything beyond a
 * day is capped so a broken or hostile header cannot park an operation for ever.
 */
export function parseRetryAfter(header: string | null | undefined, now: number): number | undefined {
  if (typeof header !== "string") return undefined;
  const value = header.trim();
  if (value === "") return undefined;
  let ms: number | undefined;
  // Fractions are not in the RFC, but some providers send them and the meaning is unambiguous.
  if (/^\d+(\.\d+)?$/.test(value)) ms = Math.ceil(Number(value) * 1000);
  else {
    const at = parseHttpDate(value);
    if (at !== undefined) ms = at - now;
  }
  if (ms === undefined || Number.isNaN(ms)) return undefined;
  return Math.min(DAY_MS, Math.max(0, ms));
}
