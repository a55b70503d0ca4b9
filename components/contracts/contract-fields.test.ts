// The contract form's table of fields: every setting of the draft is asked once, and every problem the schema finds
// with a field's value is shown next to that field.
import { describe, expect, it } from "vitest";
import { fieldErrors } from "@/lib/platform/http/request-body";
import { contractBodySchema } from "@/lib/ledger/contracts/contract-schema";
import { bodyOf, fieldMessages, formErrors, NEW_CONTRACT_DRAFT, type ContractDraft } from "./contract-draft";
import type { ContractField } from "./contract-field-types";
import { CONTRACT_SECTIONS } from "./contract-fields";

const fields: ContractField[] = CONTRACT_SECTIONS.flatMap((s) => s.groups.flatMap((g) => g.fields));

/** A lookup that is valid apart from the field under test. */
const LOOKUP: ContractDraft = {
  ...NEW_CONTRACT_DRAFT,
  reconcileMethod: "lookup",
  urlTemplate: "https://api.example.com/v1/charges/{idempotencyKey}",
};

/** A value of the field's kind that the schema refuses, or null for a field that has none (a checkbox, the name). */
function wrongValue(field: ContractField): string | null {
  switch (field.kind) {
    case "choice":
      // The reconcile method picks which fields are sent rather than being sent as typed.
      return field.key === "reconcileMethod" ? null : "NOT_A_CHOICE";
    case "checkbox":
      return null;
    case "text":
      if (field.createOnly) return null;
      return field.numeric ? "-1.5" : "{".repeat(2_001);
    case "textarea":
      return "x".repeat(2_001);
  }
}

describe("CONTRACT_SECTIONS", () => {
  it("asks every setting of the draft once; the error rules have their own editor", () => {
    const keys = fields.map((f) => f.key);
    expect(new Set(keys).size).toBe(keys.length);
    const asked = Object.keys(NEW_CONTRACT_DRAFT).filter((k) => k !== "errorRules");
    expect([...keys].sort()).toEqual(asked.sort());
  });

  it("shows the lookup's settings only when the method is a lookup", () => {
    const conditional = CONTRACT_SECTIONS.flatMap((s) => s.groups).filter((g) => g.shownWhen);
    expect(conditional.map((g) => g.layout)).toEqual(["lookup"]);
    expect(conditional[0]!.shownWhen!(LOOKUP)).toBe(true);
    expect(conditional[0]!.shownWhen!({ ...LOOKUP, reconcileMethod: "manual" })).toBe(false);
  });

  it.each(fields.filter((f) => wrongValue(f) !== null).map((f) => [f.name, f] as const))(
    "shows the schema's problem with %s next to its field",
    (_name, field) => {
      const draft = { ...LOOKUP, [field.key]: wrongValue(field) };
      const parsed = contractBodySchema.safeParse(bodyOf(draft, undefined));
      expect(parsed.success).toBe(false);
      const errors = parsed.success ? {} : formErrors(fieldErrors(parsed.error));
      expect(fieldMessages(errors, field)?.length ?? 0).toBeGreaterThan(0);
    },
  );

  it("shows a maximum wait shorter than the base under the maximum, not the base", () => {
    const draft = { ...NEW_CONTRACT_DRAFT, backoffBaseMs: "5000", backoffMaxMs: "1000" };
    const parsed = contractBodySchema.safeParse(bodyOf(draft, undefined));
    const errors = parsed.success ? {} : formErrors(fieldErrors(parsed.error));
    const base = fields.find((f) => f.key === "backoffBaseMs")!;
    const max = fields.find((f) => f.key === "backoffMaxMs")!;
    expect(fieldMessages(errors, max)).toEqual(["MaxMs must be at least baseMs."]);
    expect(fieldMessages(errors, base)).toBeUndefined();
  });
});
