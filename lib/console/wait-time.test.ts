// The queues' time words: ages, time left before an approval request expires, and the quorum.
import { describe, expect, it } from "vitest";
import { approvalDeadline, formatAge, quorumText, URGENT_APPROVAL_MS } from "./wait-time";

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = Date.parse("2026-12-01T12:00:00Z");

describe("formatAge", () => {
  it.each([
    [0, "under 1 min"],
    [59_999, "under 1 min"],
    [MIN, "1 min"],
    [59 * MIN + 59_999, "59 min"],
    [HOUR, "1 h"],
    [3 * HOUR + 20 * MIN + 30_000, "3 h 20 min"],
    [24 * HOUR, "1 d"],
    [2 * 24 * HOUR + 5 * HOUR + 59 * MIN, "2 d 5 h"],
  ])("%i ms reads %s", (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});

describe("approvalDeadline", () => {
  it.each([
    ["no deadline", null, { state: "none", text: "no deadline" }],
    ["hours left", NOW + 3 * HOUR + 20 * MIN, { state: "open", text: "expires in 3 h 20 min" }],
    ["exactly an hour left", NOW + URGENT_APPROVAL_MS, { state: "open", text: "expires in 1 h" }],
    ["just under an hour left", NOW + URGENT_APPROVAL_MS - 1, { state: "urgent", text: "expires in 59 min" }],
    ["seconds left", NOW + 30_000, { state: "urgent", text: "expires in under 1 min" }],
    // The core's rule: the request stands at its deadline and has run out only after it.
    ["at the deadline", NOW, { state: "urgent", text: "expires in under 1 min" }],
    ["a millisecond past", NOW - 1, { state: "expired", text: "expired" }],
    ["long past", NOW - 5 * HOUR, { state: "expired", text: "expired" }],
  ] as const)("%s", (_name, expiresAt, expected) => {
    expect(approvalDeadline(expiresAt, NOW)).toEqual(expected);
  });

  it("counts down as the clock moves, and turns urgent then expired", () => {
    const expiresAt = NOW + 2 * HOUR;
    const states = [0, HOUR, HOUR + 1, 2 * HOUR, 2 * HOUR + 1].map((t) => approvalDeadline(expiresAt, NOW + t).state);
    expect(states).toEqual(["open", "open", "urgent", "urgent", "expired"]);
  });
});

describe("quorumText", () => {
  it.each([
    [{ given: 0, needed: 1 }, null],
    [{ given: 0, needed: 2 }, "0 of 2 approvals"],
    [{ given: 1, needed: 2 }, "1 of 2 approvals"],
    [{ given: 2, needed: 3 }, "2 of 3 approvals"],
  ])("%j reads %s", (approvals, text) => {
    expect(quorumText(approvals)).toBe(text);
  });
});
