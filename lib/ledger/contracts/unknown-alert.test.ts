// unknownAlertMs: stored and shown when set, left out of the body hash at its default so older contracts keep their
// versions, and validated like approvalTtlMs.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { alice, at, contractFor, T0 } from "@/tests/helpers/ledger-fixtures";
import { contractBodySchema } from "./contract-schema";
import { putContract } from "./contract-versions";
import { diffContracts } from "./contract-diff";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

describe("unknownAlertMs", () => {
  it("keeps the version of a body without it when it is sent as null, and makes a new one when it is set", async () => {
    const first = await putContract(t.ledger, "email.send", contractFor("NON_RETRYABLE"), alice, T0);
    expect(first.contract).toMatchObject({ version: 1, unknownAlertMs: null });
    const same = await putContract(
      t.ledger,
      "email.send",
      { ...contractFor("NON_RETRYABLE"), unknownAlertMs: null },
      alice,
      at(1),
    );
    expect(same).toMatchObject({ changed: false, contract: { version: 1 } });
    const set = await putContract(
      t.ledger,
      "email.send",
      { ...contractFor("NON_RETRYABLE"), unknownAlertMs: 60_000 },
      alice,
      at(2),
    );
    expect(set).toMatchObject({ changed: true, contract: { version: 2, unknownAlertMs: 60_000 } });
    expect(
      (await t.db.contractVersion.findFirstOrThrow({ where: { tool: "email.send", version: 2 } })).unknownAlertMs,
    ).toBe(60_000);
    expect(diffContracts(first.contract, set.contract).map((d) => d.path)).toEqual(["unknownAlertMs"]);
  });

  it.each([999, 31 * 24 * 60 * 60_000, 1.5])("refuses %s", (value) => {
    const parsed = contractBodySchema.safeParse({ ...contractFor("NON_RETRYABLE"), unknownAlertMs: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["unknownAlertMs"]);
  });
});
