// The decisions a person may take, per phase: the console offers exactly these and the ledger refuses the rest.
import { expect, test } from "vitest";
import { personActionsFor } from "./person-actions";
import type { EffectEvidence, Phase } from "./types";

test.each<[Phase, EffectEvidence, string[]]>([
  ["AWAITING_APPROVAL", "none", ["approve", "reject"]],
  ["UNKNOWN", "none", ["reconcile"]],
  ["PLANNED", "none", ["reject"]],
  ["RETRY_SCHEDULED", "none", ["reject"]],
  ["RECONCILED", "not_applied", ["reject"]],
  ["RECONCILED", "applied", []],
  ["AUTHORIZED", "none", []],
  ["DISPATCHED", "none", []],
  ["CONFIRMED", "none", []],
  ["FAILED", "none", []],
  ["REJECTED", "none", []],
  ["EXPIRED", "none", []],
])("%s with evidence %s offers %j", (phase, evidence, actions) => {
  expect(personActionsFor(phase, evidence)).toEqual(actions);
});
