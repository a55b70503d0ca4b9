// Which operations a person may replay, and which replays wait for a second person.
import { expect, test } from "vitest";
import { canReplay, replayNeedsApproval } from "./replay";
import { isTerminal } from "./phases";
import { EFFECT_CLASSES, PHASES, type EffectClass, type EffectEvidence, type Phase } from "./types";

test.each<[Phase, EffectEvidence, boolean]>([
  ["CONFIRMED", "none", true],
  ["FAILED", "none", true],
  ["REJECTED", "none", true],
  ["REJECTED", "not_applied", true],
  ["EXPIRED", "none", true],
  ["RECONCILED", "applied", true],
  ["RECONCILED", "not_applied", false],
  ["PLANNED", "none", false],
  ["AUTHORIZED", "none", false],
  ["DISPATCHED", "none", false],
  ["UNKNOWN", "none", false],
  ["RETRY_SCHEDULED", "none", false],
  ["AWAITING_APPROVAL", "none", false],
])("%s with evidence %s may be replayed: %s", (phase, evidence, allowed) => {
  expect(canReplay(phase, evidence)).toBe(allowed);
});

test("every terminal phase may be replayed, and no live phase but a RECONCILED applied one", () => {
  for (const phase of PHASES) {
    if (phase === "RECONCILED") continue;
    expect(canReplay(phase, "none")).toBe(isTerminal(phase));
  }
});

test.each<[EffectClass, boolean]>(EFFECT_CLASSES.map((effect) => [effect, effect === "NON_RETRYABLE"]))(
  "a replay of a %s tool waits for a second person: %s",
  (effect, waits) => {
    expect(replayNeedsApproval(effect)).toBe(waits);
  },
);
