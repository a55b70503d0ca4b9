// `_meta["opledger/runAllowance"]` on a real database: the allowance a client sends on every call is written (and
// audited) once, and again only when it changes; a malformed one is refused with words for the model.
import { afterEach, beforeEach, expect, it } from "vitest";
import type { KeyActor } from "@/lib/platform/auth/api-keys";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, at } from "@/tests/helpers/ledger-fixtures";
import { declareRunAllowance } from "./run-allowance-meta";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

it("writes the allowance once, again only on a change, and refuses a malformed one", async () => {
  const ctx = { ledger: t.ledger, actor: agent as KeyActor, run: "run-meta" };
  const sets = () => t.db.auditEvent.count({ where: { action: "run.allowance_set", subjectId: "run-meta" } });
  const allowance = { maxRetries: 2, deadlineAt: at(60_000).toISOString() };
  expect(await declareRunAllowance(ctx, allowance, at(1))).toBeNull();
  const first = await t.db.runAllowance.findUniqueOrThrow({ where: { runId: "run-meta" } });
  for (let call = 2; call <= 4; call++) expect(await declareRunAllowance(ctx, allowance, at(call))).toBeNull();
  expect(await sets()).toBe(1);
  expect(await t.db.runAllowance.findUniqueOrThrow({ where: { runId: "run-meta" } })).toEqual(first);

  expect(await declareRunAllowance(ctx, { ...allowance, maxRetries: 3 }, at(5))).toBeNull();
  expect(await sets()).toBe(2);
  expect((await t.db.runAllowance.findUniqueOrThrow({ where: { runId: "run-meta" } })).maxRetries).toBe(3);

  expect(await declareRunAllowance(ctx, { maxRetries: -1 }, at(6))).toContain('_meta["opledger/runAllowance"]');
  expect(await declareRunAllowance(ctx, undefined, at(7))).toBeNull();
  expect(await sets()).toBe(2);
});
