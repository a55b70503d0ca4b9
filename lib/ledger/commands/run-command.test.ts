// The operation store: the row a conditional write returns is the stored row, and each operation keeps its contract
// version.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, at, contractFor, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { dispatch, planAndClaim } from "@/tests/helpers/lifecycle";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { loadContext } from "../reads/operation-context";
import { nextPhase } from "@/lib/retry-gate/phase-events";
import type { Phase } from "@/lib/retry-gate/types";
import { writeOperation, type OperationChanges } from "./run-command";
import { WriteConflict } from "../store/types";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { dependency: "payments-api" });
});
afterEach(async () => t.close());

describe("writeOperation", () => {
  it("returns exactly the row the database now holds, without reading it back", async () => {
    const { id, fence } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k1" }, T0);
    await dispatch(t.ledger, id, fence, at(1));
    const written = await t.ledger.store.transaction(async (tx) => {
      const { op } = await loadContext(tx, id);
      return writeOperation(
        tx,
        op,
        { lastError: '{"kind":"timeout"}', notBefore: undefined, providerId: null },
        at(2),
        nextPhase(op.phase as Phase, { type: "outcome_unknown" }),
      );
    });
    expect(written).toEqual(await t.db.operation.findUniqueOrThrow({ where: { id } }));
    expect(written).toMatchObject({ phase: "UNKNOWN", providerId: null, version: 3, updatedAt: at(2) });
  });

  it("refuses a write on a version that moved, changing nothing", async () => {
    const { id } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k1" }, T0);
    const { op } = await loadContext(t.ledger.store, id);
    await dispatch(t.ledger, id, op.fence, at(1));
    await expect(
      t.ledger.store.transaction((tx) => writeOperation(tx, op, { leaseOwner: "w9" }, at(2))),
    ).rejects.toBeInstanceOf(WriteConflict);
    expect((await t.db.operation.findUniqueOrThrow({ where: { id } })).leaseOwner).toBe("w1");
  });

  it("writes only the phase the gate answered: a phase among the changes, or an answer about another phase, is refused", async () => {
    const { id } = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k1" }, T0);
    const { op } = await loadContext(t.ledger.store, id);
    const own = { phase: "CONFIRMED" } as OperationChanges;
    await expect(t.ledger.store.transaction((tx) => writeOperation(tx, op, own, at(1)))).rejects.toThrow(
      /wrote the phase of .* itself/,
    );
    const elsewhere = nextPhase("DISPATCHED", { type: "confirmed" });
    await expect(t.ledger.store.transaction((tx) => writeOperation(tx, op, {}, at(1), elsewhere))).rejects.toThrow(
      /asked about .* in DISPATCHED, but the row read is PLANNED/,
    );
    expect(await t.db.operation.findUniqueOrThrow({ where: { id } })).toMatchObject({ phase: "PLANNED", version: 1 });
  });
});

describe("loadContext", () => {
  it("keeps each operation on the contract version it was planned under after the contract changes", async () => {
    const first = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k1" }, T0);
    expect((await loadContext(t.ledger.store, first.id)).contract.maxAttempts).toBe(3);
    await putContract(
      t.ledger,
      "payments.charge",
      contractFor("IDEMPOTENT", { dependency: "payments-api", maxAttempts: 7 }),
      agent,
      at(1),
    );
    const second = await planAndClaim(t.ledger, { tool: "payments.charge", args: {}, idempotencyKey: "k2" }, at(2));
    expect((await loadContext(t.ledger.store, first.id)).contract).toMatchObject({ version: 1, maxAttempts: 3 });
    expect((await loadContext(t.ledger.store, second.id)).contract).toMatchObject({ version: 2, maxAttempts: 7 });
  });
});
