// The demo seed leaves operations in every phase an operator must handle, and a second run adds nothing; the demo
// contracts include the desk's, for the MCP gateway.
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { countByPhase } from "@/lib/ledger/reads/operations";
import { getContract, putContract } from "@/lib/ledger/contracts/contract-versions";
import { DEMO_CONTRACTS } from "./contracts";
import { ensureDemoContracts, seedDemo } from "./seed";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

it(
  "seeds confirmed, unknown, awaiting-approval and failed operations through the ledger",
  { timeout: 30_000 },
  async () => {
    const now = new Date("2026-11-30T12:00:00Z");
    const first = await seedDemo(t.ledger, now);
    // Six for the HTTP demo tools, four for the desk behind the MCP gateway.
    expect(first.contracts).toBe(10);
    const phases = await countByPhase(t.ledger);
    expect(phases).toMatchObject({ CONFIRMED: 15, UNKNOWN: 3, AWAITING_APPROVAL: 3, FAILED: 1 });
    expect(await t.db.auditEvent.count({ where: { action: "operation.planned" } })).toBe(first.operations);
    expect((await seedDemo(t.ledger, now)).operations).toBe(0);
    expect(await t.db.operation.count()).toBe(first.operations);
  },
);

it("points the demo contracts at the providers, follows a new provider address, and keeps a contract a person edited", async () => {
  const now = new Date("2026-11-30T12:00:00Z");
  await ensureDemoContracts(t.ledger, "http://127.0.0.1:3999", now);
  const deploy = await getContract(t.ledger, "deploy.release");
  expect(deploy.reconcile).toMatchObject({
    method: "lookup",
    urlTemplate: "http://127.0.0.1:3999/deploy/v1/deployments?clientToken={idempotencyKey}",
    auto: true,
  });
  expect((await ensureDemoContracts(t.ledger, "http://127.0.0.1:3999", now)).written).toEqual([]);
  // The desk's tools as the gateway lists them; its notes are observed only.
  expect(await getContract(t.ledger, "desk__add_note")).toMatchObject({ mode: "observe", effect: "UNKNOWN" });
  expect(await getContract(t.ledger, "desk__create_ticket")).toMatchObject({ mode: "enforce" });

  const email = DEMO_CONTRACTS["email.send"];
  if (!email) throw new Error("no email contract");
  const edited = { ...email, maxAttempts: 2 };
  await putContract(
    t.ledger,
    "email.send",
    edited,
    { type: "user", id: "ops@example.test", label: "ops@example.test", role: "admin" },
    now,
  );
  const moved = await ensureDemoContracts(t.ledger, "http://127.0.0.1:4555", now);
  expect(moved.keptEdited).toEqual(["email.send"]);
  expect(moved.written).toEqual(expect.arrayContaining(["payments.charge", "deploy.release", "refunds.issue"]));
  expect((await getContract(t.ledger, "payments.charge")).reconcile?.urlTemplate).toBe(
    "http://127.0.0.1:4555/payments/v1/charges/by-key/{idempotencyKey}",
  );
  expect((await getContract(t.ledger, "email.send")).maxAttempts).toBe(2);
});
