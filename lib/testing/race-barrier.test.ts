// The race barrier: off unless a test process asked for it, holds contenders until all arrived, fails a lone one.
import { afterEach, describe, expect, it } from "vitest";
import { RaceBarrier, raceBarrier } from "./race-barrier";

let barrier: RaceBarrier | null = null;

async function open(contenders: number, timeoutMs?: number): Promise<RaceBarrier> {
  barrier = await RaceBarrier.open("operation.update", contenders, timeoutMs);
  process.env.OPLEDGER_TEST_HOOKS = "1";
  process.env.OPLEDGER_RACE_BARRIER = barrier.setting;
  return barrier;
}

afterEach(async () => {
  delete process.env.OPLEDGER_TEST_HOOKS;
  delete process.env.OPLEDGER_RACE_BARRIER;
  await barrier?.close();
  barrier = null;
});

/** Whether `p` settled within a few event-loop turns of socket traffic. */
async function settledSoon(p: Promise<void>): Promise<boolean> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  return settled;
}

describe("raceBarrier", () => {
  it("is off without OPLEDGER_TEST_HOOKS=1, and at every statement the test did not name", async () => {
    const b = await open(2);
    delete process.env.OPLEDGER_TEST_HOOKS;
    expect(raceBarrier("operation.update", "op1")).toBeUndefined();
    process.env.OPLEDGER_TEST_HOOKS = "1";
    expect(raceBarrier("operation.insert", "op1")).toBeUndefined();
    expect(raceBarrier("sqlite.begin-immediate", "op1")).toBeUndefined();
    expect(b.met()).toEqual(new Map());
  });

  it("holds each contender until all reached the same key, then lets them all go; a late one goes at once", async () => {
    const b = await open(2);
    const first = raceBarrier("operation.update", "op1")!;
    const elsewhere = raceBarrier("operation.update", "op2")!;
    expect(await settledSoon(first)).toBe(false);
    const second = raceBarrier("operation.update", "op1")!;
    await Promise.all([first, second]);
    expect(b.met().get("op1")).toEqual([process.pid, process.pid]);
    // A retry reaching a released key is not held again.
    expect(await settledSoon(raceBarrier("operation.update", "op1")!)).toBe(true);
    expect(await settledSoon(elsewhere)).toBe(false);
    expect(b.met().get("op2")).toEqual([]);
    void raceBarrier("operation.update", "op2");
    await elsewhere;
    expect(b.timeouts).toEqual([]);
  });

  it("fails a contender left alone past the timeout, and reports it", async () => {
    const b = await open(2, 100);
    await expect(raceBarrier("operation.update", "op1")).rejects.toThrow(
      "only 1 of 2 contenders reached operation.update op1 within 100 ms",
    );
    expect(b.timeouts).toEqual(["only 1 of 2 contenders reached operation.update op1 within 100 ms"]);
    expect(b.met().get("op1")).toEqual([]);
  });
});
