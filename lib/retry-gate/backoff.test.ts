// Tests for exponential backoff with full jitter and for the Retry-After floor.
import { describe, expect, test } from "vitest";
import { backoffCap, backoffDelay, retryDelay } from "./backoff";
import { type ClassifiedError } from "./types";

const backoff = { baseMs: 100, maxMs: 10_000 };
const top = () => 0.999_999_999;
const bottom = () => 0;
const middle = () => 0.5;

describe("backoffDelay", () => {
  test.each<[number, number]>([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [7, 6400],
    [8, 10_000],
    [50, 10_000],
  ])("after attempt %i the cap is %i ms", (attempt, cap) => {
    expect(backoffCap(attempt, backoff)).toBe(cap);
    expect(backoffDelay(attempt, backoff, top)).toBe(cap);
    expect(backoffDelay(attempt, backoff, bottom)).toBe(0);
  });

  test("full jitter: the delay is a uniform draw between 0 and the cap", () => {
    expect(backoffDelay(3, backoff, middle)).toBe(200);
    expect(backoffDelay(3, backoff, () => 0.25)).toBe(100);
  });

  test("huge attempt numbers do not overflow", () => {
    for (const attempt of [1_000, 1_000_000, Number.MAX_SAFE_INTEGER, Number.POSITIVE_INFINITY]) {
      expect(backoffCap(attempt, backoff)).toBe(10_000);
      expect(backoffDelay(attempt, backoff, top)).toBe(10_000);
    }
    expect(backoffCap(10_000, { baseMs: 0, maxMs: 1000 })).toBe(0);
  });

  test("attempt 0 or less gets the first step", () => {
    expect(backoffCap(0, backoff)).toBe(100);
    expect(backoffCap(-3, backoff)).toBe(100);
  });

  test("a broken random source cannot break the bounds", () => {
    expect(backoffDelay(4, backoff, () => 1)).toBe(800);
    expect(backoffDelay(4, backoff, () => 7)).toBe(800);
    expect(backoffDelay(4, backoff, () => -1)).toBe(0);
    expect(backoffDelay(4, backoff, () => Number.NaN)).toBe(0);
  });

  test("negative or missing settings count as 0", () => {
    expect(backoffCap(3, { baseMs: -5, maxMs: 100 })).toBe(0);
    expect(backoffCap(3, { baseMs: 100, maxMs: -1 })).toBe(0);
    expect(backoffCap(3, { baseMs: Number.NaN, maxMs: 100 })).toBe(0);
  });
});

describe("retryDelay", () => {
  const rateLimited = (retryAfterMs?: number): ClassifiedError => ({
    kind: "rate_limited",
    errorClass: "transient",
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

  test("without Retry-After it is the backoff", () => {
    expect(retryDelay(3, backoff, null, middle)).toBe(200);
    expect(retryDelay(3, backoff, rateLimited(), middle)).toBe(200);
  });

  test("Retry-After is a floor", () => {
    expect(retryDelay(3, backoff, rateLimited(5000), middle)).toBe(5000);
    expect(retryDelay(3, backoff, rateLimited(50), middle)).toBe(200);
  });

  test("Retry-After may exceed maxMs: the provider's word wins over our cap", () => {
    expect(retryDelay(3, backoff, rateLimited(60_000), top)).toBe(60_000);
  });

  test("never more than max(maxMs, Retry-After)", () => {
    expect(retryDelay(100, backoff, rateLimited(20), top)).toBe(10_000);
  });

  test("a negative Retry-After is ignored", () => {
    expect(retryDelay(3, backoff, rateLimited(-1000), bottom)).toBe(0);
  });
});
