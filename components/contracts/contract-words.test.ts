// The contract's vocabulary: every word the schema accepts is explained, the defaults are marked, durations read well.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTRACT_MODES, TOOL_ERROR_MEANINGS } from "@/lib/ledger/contracts/contract-schema";
import { GATEWAY_DEFAULTS } from "@/lib/ledger/contracts/contract-view";
import { EFFECT_CLASSES } from "@/lib/retry-gate/types";
import {
  APPROVAL_CHOICES,
  approvalLabel,
  EFFECT_CHOICES,
  humanDuration,
  KEY_POLICY_CHOICES,
  MODE_CHOICES,
  RECONCILE_CHOICES,
  TOOL_ERROR_CHOICES,
  type Choice,
} from "./contract-words";

const values = <T extends string>(choices: Choice<T>[]) => choices.map((c) => c.value);

describe("choices", () => {
  it("offers each word the schema accepts once, in the core's order, each with its help", () => {
    expect(values(EFFECT_CHOICES)).toEqual([...EFFECT_CLASSES]);
    expect(values(KEY_POLICY_CHOICES)).toEqual(["required", "optional", "unsupported"]);
    expect(values(RECONCILE_CHOICES)).toEqual(["none", "manual", "lookup"]);
    expect(values(APPROVAL_CHOICES).sort()).toEqual(["not_required", "required"]);
    expect(values(TOOL_ERROR_CHOICES)).toEqual([...TOOL_ERROR_MEANINGS]);
    expect(values(MODE_CHOICES)).toEqual([...CONTRACT_MODES]);
    const all = [EFFECT_CHOICES, KEY_POLICY_CHOICES, RECONCILE_CHOICES, APPROVAL_CHOICES, TOOL_ERROR_CHOICES];
    for (const choice of [...all.flat(), ...MODE_CHOICES]) expect(choice.help).toMatch(/^[A-Z"].*\.$/);
  });

  it("marks as default exactly the gateway's default meaning and mode", () => {
    expect(TOOL_ERROR_CHOICES.filter((c) => c.isDefault).map((c) => c.value)).toEqual([GATEWAY_DEFAULTS.toolError]);
    expect(MODE_CHOICES.filter((c) => c.isDefault).map((c) => c.value)).toEqual([GATEWAY_DEFAULTS.mode]);
  });

  it("names the approval setting inside a sentence in lower case", () => {
    expect(approvalLabel("required")).toBe("every attempt");
    expect(approvalLabel("not_required")).toBe("when the rules ask");
  });
});

describe("humanDuration", () => {
  it.each([
    [86_400_000, "1 d"],
    [172_800_000, "2 d"],
    [3_600_000, "1 h"],
    [5_400_000, "90 min"],
    [30_000, "30 s"],
    [1_500, "1500 ms"],
    [0, "0 ms"],
  ])("%d ms reads %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it("is exact: the largest whole unit it names, times its number, is the milliseconds given", () => {
    const units: Record<string, number> = { d: 86_400_000, h: 3_600_000, min: 60_000, s: 1_000, ms: 1 };
    fc.assert(
      fc.property(fc.nat({ max: 400 * 86_400_000 }), (ms) => {
        const [amount, unit] = humanDuration(ms).split(" ");
        expect(Number.isInteger(Number(amount))).toBe(true);
        expect(Number(amount) * units[unit!]!).toBe(ms);
        // No larger unit would have been whole.
        const larger = Object.values(units).filter((size) => size > units[unit!]!);
        for (const size of larger) expect(ms >= size && ms % size === 0).toBe(false);
      }),
    );
  });
});
