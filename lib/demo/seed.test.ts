// The demo seed leaves operations in every phase an operator must handle, and a second run adds nothing.
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { countByPhase } from "@/lib/ledger/queries";
import { seedDemo } from "./seed";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

it("seeds confirmed, unknown, awaiting-approval and failed operations through the ledger", async () => {
  const now = new Date("2026-11-30T12:00:00Z");
  const first = await seedDemo(t.client, now);
  expect(first.contracts).toBe(6);
  const phases = await countByPhase(t.client);
  expect(phases).toMatchObject({ CONFIRMED: 15, UNKNOWN: 3, AWAITING_APPROVAL: 3, FAILED: 1 });
  expect(await t.client.auditEvent.count({ where: { action: "operation.planned" } })).toBe(first.operations);
  expect((await seedDemo(t.client, now)).operations).toBe(0);
  expect(await t.client.operation.count()).toBe(first.operations);
});
