// Tests for the circuit breaker: closed -> open -> half-open -> closed, the single probe, and operator overrides.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  CLOSED_BREAKER,
  DEFAULT_BREAKER_SETTINGS,
  type ProbedBreaker,
  type TunedBreakerConfig,
  breakerAllowsDispatch,
  effectiveBreakerState,
  nextBreaker,
  type BreakerEvent,
} from "./breaker";
import { type Breaker, type BreakerConfig } from "./types";

const config: BreakerConfig = { failureThreshold: 3, cooldownMs: 30_000 };
const T = 1_800_000_000_000;

function run(b: Breaker, events: ReadonlyArray<BreakerEvent>, now = T): Breaker {
  return events.reduce((state, event) => nextBreaker(state, event, config, now), b);
}

const failure: BreakerEvent = { type: "failure" };
const success: BreakerEvent = { type: "success" };
const probe: BreakerEvent = { type: "probe" };
const openAt = (openedAt: number): Breaker => ({ ...CLOSED_BREAKER, state: "open", consecutiveFailures: 3, openedAt });

describe("CLOSED_BREAKER", () => {
  test("is closed, with no failures and no override", () => {
    expect(CLOSED_BREAKER).toEqual({
      state: "closed",
      consecutiveFailures: 0,
      openedAt: null,
      forced: null,
      forcedReason: null,
      probeInFlight: false,
      probeSuccesses: 0,
    });
  });

  test("is frozen, so no caller can change it for everyone", () => {
    expect(Object.isFrozen(CLOSED_BREAKER)).toBe(true);
  });
});

describe("closed", () => {
  test("failures below the threshold are counted", () => {
    expect(run(CLOSED_BREAKER, [failure, failure])).toEqual({ ...CLOSED_BREAKER, consecutiveFailures: 2 });
  });

  test("the threshold-th consecutive failure opens it, now", () => {
    expect(run(CLOSED_BREAKER, [failure, failure, failure])).toEqual(openAt(T));
  });

  test("a success resets the count", () => {
    expect(run(CLOSED_BREAKER, [failure, failure, success, failure, failure])).toEqual({
      ...CLOSED_BREAKER,
      consecutiveFailures: 2,
    });
  });

  test("a probe changes nothing", () => {
    expect(run(CLOSED_BREAKER, [probe])).toEqual(CLOSED_BREAKER);
  });

  test("does not mutate its input", () => {
    const before = { ...CLOSED_BREAKER };
    nextBreaker(before, failure, config, T);
    expect(before).toEqual(CLOSED_BREAKER);
  });
});

describe("open, cooldown running", () => {
  const open = openAt(T);
  const during = T + 10_000;

  test("reads as open", () => {
    expect(effectiveBreakerState(open, config, during)).toBe("open");
  });

  test("refuses dispatch with the remaining cooldown", () => {
    const verdict = breakerAllowsDispatch(open, config, during);
    expect(verdict).toMatchObject({ allowed: false, retryAfterMs: 20_000 });
    expect(verdict.allowed === false && verdict.reason).toMatch(/open since \S+ after 3 consecutive failures/);
  });

  test("a late failure is counted but does not restart the cooldown", () => {
    expect(nextBreaker(open, failure, config, during)).toEqual({ ...open, consecutiveFailures: 4 });
  });

  test("a probe is ignored: there is no probe while the cooldown runs", () => {
    expect(nextBreaker(open, probe, config, during)).toEqual(open);
  });

  test("a late success closes it, because the dependency demonstrably works", () => {
    expect(nextBreaker(open, success, config, during)).toEqual(CLOSED_BREAKER);
  });
});

describe("half-open", () => {
  const open = openAt(T);
  const after = T + 30_000;

  test("an open breaker whose cooldown has elapsed reads as half-open", () => {
    expect(effectiveBreakerState(open, config, after - 1)).toBe("open");
    expect(effectiveBreakerState(open, config, after)).toBe("half_open");
  });

  test("an open breaker without an opening time reads as half-open, so it cannot stay shut for ever", () => {
    expect(effectiveBreakerState({ ...open, openedAt: null }, config, T)).toBe("half_open");
  });

  test("allows exactly one probe", () => {
    expect(breakerAllowsDispatch(open, config, after)).toEqual({ allowed: true, probe: true });
    const probing = nextBreaker(open, probe, config, after);
    expect(probing).toEqual({ ...open, state: "half_open", probeInFlight: true });
    const second = breakerAllowsDispatch(probing, config, after);
    expect(second).toMatchObject({ allowed: false, retryAfterMs: config.cooldownMs });
    expect(second.allowed === false && second.reason).toMatch(/probe attempt is already in flight/);
    expect(nextBreaker(probing, probe, config, after)).toEqual(probing);
  });

  test("the probe's success closes it", () => {
    expect(run(open, [probe, success], after)).toEqual(CLOSED_BREAKER);
  });

  test("the probe's failure opens it again, from now", () => {
    const later = after + 5_000;
    expect(run(open, [probe, failure], later)).toEqual({ ...openAt(later), consecutiveFailures: 4 });
  });
});

describe("operator overrides", () => {
  test("force_open pins it open with the operator's reason", () => {
    const forced = nextBreaker(CLOSED_BREAKER, { type: "force_open", reason: "provider maintenance" }, config, T);
    expect(forced).toEqual({
      ...CLOSED_BREAKER,
      state: "open",
      openedAt: T,
      forced: "open",
      forcedReason: "provider maintenance",
    });
    expect(effectiveBreakerState(forced, config, T + 10 * config.cooldownMs)).toBe("open");
    const verdict = breakerAllowsDispatch(forced, config, T + 10 * config.cooldownMs);
    expect(verdict).toMatchObject({ allowed: false, retryAfterMs: config.cooldownMs });
    expect(verdict.allowed === false && verdict.reason).toMatch(
      /forced open by an operator \("provider maintenance"\)/,
    );
  });

  test("outcomes while forced open are counted but never change the state", () => {
    const forced = nextBreaker(CLOSED_BREAKER, { type: "force_open", reason: "r" }, config, T);
    const afterOutcomes = run(forced, [failure, failure, failure, failure, success, failure, probe]);
    expect(afterOutcomes).toEqual({ ...forced, consecutiveFailures: 1 });
  });

  test("force_close pins it closed with no failures, even past the threshold", () => {
    const forced = nextBreaker(openAt(T), { type: "force_close", reason: "known good" }, config, T);
    expect(forced).toEqual({ ...CLOSED_BREAKER, forced: "closed", forcedReason: "known good" });
    const afterFailures = run(forced, [failure, failure, failure, failure]);
    expect(afterFailures).toEqual({ ...forced, consecutiveFailures: 4 });
    expect(effectiveBreakerState(afterFailures, config, T)).toBe("closed");
    expect(breakerAllowsDispatch(afterFailures, config, T)).toEqual({ allowed: true, probe: false });
  });

  test("release clears the override and returns to closed with no failures", () => {
    const forced = run(CLOSED_BREAKER, [{ type: "force_open", reason: "r" }, failure, failure]);
    expect(nextBreaker(forced, { type: "release" }, config, T)).toEqual(CLOSED_BREAKER);
    const forcedClosed = run(CLOSED_BREAKER, [{ type: "force_close", reason: "r" }, failure]);
    expect(nextBreaker(forcedClosed, { type: "release" }, config, T)).toEqual(CLOSED_BREAKER);
  });

  test("force_close then force_open switches the pin", () => {
    const b = run(CLOSED_BREAKER, [
      { type: "force_close", reason: "a" },
      { type: "force_open", reason: "b" },
    ]);
    expect(b).toMatchObject({ state: "open", forced: "open", forcedReason: "b" });
  });
});

describe("breakerAllowsDispatch when closed", () => {
  test("allows without a probe", () => {
    expect(breakerAllowsDispatch(CLOSED_BREAKER, config, T)).toEqual({ allowed: true, probe: false });
    expect(breakerAllowsDispatch({ ...CLOSED_BREAKER, consecutiveFailures: 2 }, config, T)).toEqual({
      allowed: true,
      probe: false,
    });
  });
});

describe("half-open probes (a tunable count)", () => {
  const tuned = (probes: number): TunedBreakerConfig => ({ ...config, probes });
  const open = openAt(T);
  const after = T + 30_000;
  const step = (b: ProbedBreaker, event: BreakerEvent, probes: number, now = after): ProbedBreaker =>
    nextBreaker(b, event, tuned(probes), now);

  test("the defaults are 5 failures, 30 s and one probe", () => {
    expect(DEFAULT_BREAKER_SETTINGS).toEqual({ failureThreshold: 5, cooldownMs: 30_000, probes: 1 });
  });

  test.each([1, 2, 3, 7])("with %i probes it closes on exactly that many successful probes in a row", (probes) => {
    let b: ProbedBreaker = open;
    for (let i = 1; i <= probes; i += 1) {
      expect(breakerAllowsDispatch(b, tuned(probes), after)).toEqual({ allowed: true, probe: true });
      b = step(b, probe, probes);
      expect(breakerAllowsDispatch(b, tuned(probes), after).allowed).toBe(false);
      b = step(b, success, probes);
      if (i < probes) expect(b).toMatchObject({ state: "half_open", probeInFlight: false, probeSuccesses: i });
    }
    expect(b).toEqual(CLOSED_BREAKER);
  });

  test("a failed probe reopens it from now and the count starts again", () => {
    const later = after + 1_000;
    let b = step(step(step(open, probe, 3), success, 3), probe, 3);
    b = step(b, failure, 3, later);
    expect(b).toMatchObject({ state: "open", openedAt: later, probeSuccesses: 0, probeInFlight: false });
    expect(effectiveBreakerState(b, tuned(3), later + 29_999)).toBe("open");
    expect(effectiveBreakerState(b, tuned(3), later + 30_000)).toBe("half_open");
  });

  test("the refusal while a probe is out names which probe of how many", () => {
    const b = step(step(step(open, probe, 3), success, 3), probe, 3);
    const verdict = breakerAllowsDispatch(b, tuned(3), after);
    expect(verdict.allowed === false && verdict.reason).toMatch(/probe 2 of 3 is already in flight/);
  });

  test("a late success during the cooldown counts as the first probe when more are needed", () => {
    const b = step(open, success, 2, T + 1_000);
    expect(b).toMatchObject({ state: "half_open", probeSuccesses: 1, consecutiveFailures: 0 });
    expect(step(step(b, probe, 2, T + 2_000), success, 2, T + 2_000)).toEqual(CLOSED_BREAKER);
  });

  test("a breaker without a probe count (written before it was tunable) behaves as one probe", () => {
    const legacy: ProbedBreaker = { ...openAt(T) };
    delete legacy.probeSuccesses;
    expect(nextBreaker(nextBreaker(legacy, probe, config, after), success, config, after)).toEqual(CLOSED_BREAKER);
  });

  test("for any probe count and any run of probes, successes and failures, it closes exactly after that many good probes in a row", () => {
    const arbEvent = fc.constantFrom<BreakerEvent>(probe, success, failure);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(arbEvent, { maxLength: 60 }), (probes, events) => {
        // A threshold nobody reaches here, so once closed it stays closed, and every step is a cooldown apart.
        const settings: TunedBreakerConfig = { failureThreshold: 1_000, cooldownMs: 30_000, probes };
        let b: ProbedBreaker = openAt(T);
        let now = T;
        let inARow = 0;
        let shut = false;
        for (const event of events) {
          now += settings.cooldownMs;
          b = nextBreaker(b, event, settings, now);
          if (!shut) {
            if (event.type === "success") inARow += 1;
            if (event.type === "failure") inARow = 0;
            if (inARow >= probes) shut = true;
          }
          expect(b.state === "closed").toBe(shut);
          if (!shut) {
            expect(b.probeSuccesses ?? 0).toBe(inARow);
            if (event.type === "failure") expect(b).toMatchObject({ state: "open", openedAt: now });
          }
        }
      }),
    );
  });

  test("for any probe count, a half-open breaker never has two probes out", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.constantFrom<BreakerEvent>(probe, success, failure), { maxLength: 40 }),
        (probes, events) => {
          const settings = tuned(probes);
          let b: ProbedBreaker = openAt(T);
          let now = T;
          for (const event of events) {
            now += settings.cooldownMs;
            const verdict = breakerAllowsDispatch(b, settings, now);
            // The ledger only records a probe the gate let out.
            if (event.type === "probe" && !(verdict.allowed && verdict.probe)) continue;
            b = nextBreaker(b, event, settings, now);
            if (b.probeInFlight) expect(breakerAllowsDispatch(b, settings, now).allowed).toBe(false);
          }
        },
      ),
    );
  });
});

describe("the breaker's sentence", () => {
  test("names the dependency, since when it is open and when it lets a probe through", () => {
    const verdict = breakerAllowsDispatch({ ...openAt(T), name: "payments-api" }, config, T + 10_000);
    expect(verdict).toMatchObject({ allowed: false, openSince: T, nextTryAt: T + 30_000, retryAfterMs: 20_000 });
    expect(verdict.allowed === false && verdict.reason).toBe(
      `the circuit breaker of payments-api is open since ${new Date(T).toISOString()} after 3 consecutive failures ` +
        `and lets a probe through at ${new Date(T + 30_000).toISOString()} (20000 ms of its 30000 ms cooldown remain)`,
    );
  });

  test("forced open: the operator's reason, and no time of its own to try again", () => {
    const forced = nextBreaker(
      { ...CLOSED_BREAKER, name: "payments-api" },
      { type: "force_open", reason: "maintenance" },
      config,
      T,
    );
    const verdict = breakerAllowsDispatch(forced, config, T + 5);
    expect(verdict).toMatchObject({ allowed: false, openSince: T, nextTryAt: null });
    expect(verdict.allowed === false && verdict.reason).toMatch(
      new RegExp(
        String.raw`^the circuit breaker of payments-api was forced open by an operator \("maintenance"\) at \S+ ` +
          "and stays open until a person closes it$",
      ),
    );
  });
});
