// When an approval request runs out: the TTL a contract gives it, the deadline the ledger writes, and the boundary.
import { describe, expect, test } from "vitest";
import { APPROVAL_TTL_MS, approvalExpired, approvalExpiresAt, approvalTtl } from "./approval-expiry";
import { NOW } from "./gate-arbitraries.test-helper";
import { PHASES, type Phase } from "./types";

const HOUR = 3_600_000;

describe("approvalTtl and approvalExpiresAt", () => {
  test("the bounds and default of docs/authority.md: 1 s to 30 days, 24 h when the contract sets none", () => {
    expect(APPROVAL_TTL_MS).toEqual({ default: 24 * HOUR, min: 1_000, max: 30 * 24 * HOUR });
  });

  test.each([
    [null, 24 * HOUR],
    [1_000, 1_000],
    [2 * HOUR, 2 * HOUR],
  ])("a contract with approvalTtlMs %s lets a request wait %i ms", (approvalTtlMs, ttl) => {
    expect(approvalTtl({ approvalTtlMs })).toBe(ttl);
    expect(approvalExpiresAt(NOW, { approvalTtlMs })).toBe(NOW + ttl);
  });
});

describe("approvalExpired", () => {
  test.each([
    ["before the deadline", NOW - 1, false],
    ["at the deadline (not yet waited longer than the TTL)", NOW, false],
    ["after the deadline", NOW + 1, true],
  ])("AWAITING_APPROVAL %s: %s", (_when, now, expired) => {
    expect(approvalExpired({ phase: "AWAITING_APPROVAL", approvalExpiresAt: NOW }, now)).toBe(expired);
  });

  test("a request without a deadline does not expire by itself", () => {
    expect(approvalExpired({ phase: "AWAITING_APPROVAL", approvalExpiresAt: null }, NOW + 100 * HOUR)).toBe(false);
  });

  test.each(PHASES.filter((phase): phase is Exclude<Phase, "AWAITING_APPROVAL"> => phase !== "AWAITING_APPROVAL"))(
    "%s: only EXPIRED counts, whatever deadline is left over from an earlier request",
    (phase) => {
      expect(approvalExpired({ phase, approvalExpiresAt: NOW - HOUR }, NOW)).toBe(phase === "EXPIRED");
      expect(approvalExpired({ phase, approvalExpiresAt: null }, NOW)).toBe(phase === "EXPIRED");
    },
  );
});
