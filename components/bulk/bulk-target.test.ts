// A bulk action over the ledger's filter asks the ledger for the same operations the page lists, and says what it does.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AGE_CHOICES, type LedgerFilter } from "@/lib/console/ledger-search";
import { BULK_ACTIONS, bulkFilterSchema } from "@/lib/ledger/bulk/request";
import { EFFECT_CLASSES, PHASES } from "@/lib/retry-gate/types";
import { actionExplanation, actionLabel, filterTarget } from "./bulk-target";

const NOW = Date.parse("2026-01-01T12:00:00.000Z");

describe("filterTarget", () => {
  it("turns 'older than 1 hour' into a creation time an hour before now, and keeps the other fields", () => {
    expect(filterTarget({ phase: "UNKNOWN", tool: "payments.charge", age: "1h" }, NOW)).toEqual({
      filter: { phase: "UNKNOWN", tool: "payments.charge", createdBefore: "2026-01-01T11:00:00.000Z" },
    });
  });

  it("asks for every operation when the page has no filter", () => {
    expect(filterTarget({}, NOW)).toEqual({ filter: {} });
  });

  it("gives a filter the bulk request accepts, with the page's fields and no age", () => {
    const ledgerFilter: fc.Arbitrary<LedgerFilter> = fc.record(
      {
        phase: fc.constantFrom(...PHASES),
        tool: fc.constantFrom("payments.charge", "email.send"),
        effect: fc.constantFrom(...EFFECT_CLASSES),
        runId: fc.constantFrom("run-1", "01JRUN"),
        agentId: fc.constantFrom("billing-agent"),
        age: fc.oneof(
          fc.constantFrom(...AGE_CHOICES.map((c) => c.value)),
          fc.tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom("m", "h", "d")).map(([n, u]) => `${n}${u}`),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(ledgerFilter, (filter) => {
        const { filter: sent } = filterTarget(filter, NOW);
        const parsed = bulkFilterSchema.parse(sent);
        const { age, ...fields } = filter;
        expect(parsed).toMatchObject(fields);
        expect(sent).not.toHaveProperty("age");
        if (age === undefined) expect(parsed.createdBefore).toBeUndefined();
        else expect(parsed.createdBefore!.getTime()).toBeLessThan(NOW);
      }),
    );
  });
});

describe("action words", () => {
  it("has a distinct label and a sentence for every bulk action", () => {
    const labels = BULK_ACTIONS.map(actionLabel);
    expect(new Set(labels).size).toBe(BULK_ACTIONS.length);
    for (const action of BULK_ACTIONS) expect(actionExplanation(action)).toMatch(/^[A-Z].*\.$/);
  });

  it("says an approval is four-eyes per operation and grants one attempt", () => {
    expect(actionLabel("approve")).toBe("Approve");
    expect(actionExplanation("approve")).toContain("four-eyes per operation");
  });
});
