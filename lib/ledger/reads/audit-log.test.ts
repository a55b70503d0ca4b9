// The audit log on a real database: newest first, stable keyset pages, and each filter alone and combined.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, bob, T0 } from "@/tests/helpers/ledger-fixtures";
import type { Actor } from "../actor";
import { type AuditSubject } from "@/lib/ledger/audit/append";
import { listAuditEvents } from "./audit-log";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

const onBehalfOfCarol: Actor = {
  type: "api_key",
  id: "ops-bot-key",
  label: "ops-bot (opl_x…)",
  scopes: ["operator"],
  person: { id: "carol-id", label: "carol@example.test", role: "operator" },
};

async function record(
  subjectType: AuditSubject,
  subjectId: string,
  actor: Actor,
  action: string,
  when: Date,
): Promise<void> {
  await t.ledger.store.transaction((tx) =>
    tx.appendAudit([{ subjectType, subjectId, actor, action, reason: `${action} on ${subjectId}`, at: when }]),
  );
}

async function seed(): Promise<void> {
  await record("contract", "payments.charge", alice, "contract.created", at(0));
  await record("operation", "op1", agent, "operation.planned", at(1000));
  await record("operation", "op1", agent, "operation.outcome_unknown", at(2000));
  await record("dependency", "stripe", bob, "dependency.forced_open", at(3000));
  await record("operation", "op2", onBehalfOfCarol, "operation.approved", at(4000));
  await record("contract", "payments.charge", bob, "contract.updated", at(5000));
}

describe("listAuditEvents", () => {
  it("lists newest first and pages by keyset without gaps or repeats, even when records arrive between pages", async () => {
    await seed();
    const first = await listAuditEvents(t.ledger, {}, { limit: 4 });
    expect(first.items.map((e) => e.action)).toEqual([
      "contract.updated",
      "operation.approved",
      "dependency.forced_open",
      "operation.outcome_unknown",
    ]);
    expect(first.nextCursor).toBe(first.items[3]?.id);
    await record("operation", "op3", agent, "operation.planned", at(6000));
    const second = await listAuditEvents(t.ledger, {}, { limit: 4, cursor: first.nextCursor ?? undefined });
    expect(second.items.map((e) => e.action)).toEqual(["operation.planned", "contract.created"]);
    expect(second.nextCursor).toBeNull();
    expect(second.items[0]).toMatchObject({
      subjectId: "op1",
      actorType: "api_key",
      reason: "operation.planned on op1",
      createdAt: at(1000).toISOString(),
    });
  });

  it.each([
    [{ subjectType: "contract" as const }, ["contract.updated", "contract.created"]],
    [{ subjectType: "operation" as const, subjectId: "op1" }, ["operation.outcome_unknown", "operation.planned"]],
    [{ actorId: bob.id }, ["contract.updated", "dependency.forced_open"]],
    [{ actorId: "carol-id" }, ["operation.approved"]],
    [{ actorId: onBehalfOfCarol.id }, ["operation.approved"]],
    [{ action: "operation.planned" }, ["operation.planned"]],
    [{ action: "contract.*" }, ["contract.updated", "contract.created"]],
    [{ since: at(3000) }, ["contract.updated", "operation.approved", "dependency.forced_open"]],
    [{ subjectType: "contract" as const, actorId: alice.id, since: T0 }, ["contract.created"]],
    [{ subjectId: "nothing" }, []],
  ])("filters by %o", async (filter, actions) => {
    await seed();
    const page = await listAuditEvents(t.ledger, filter, { limit: 50 });
    expect(page.items.map((e) => e.action)).toEqual(actions);
  });

  it("clamps the page size to between 1 and the maximum", async () => {
    await seed();
    expect((await listAuditEvents(t.ledger, {}, { limit: 0 })).items).toHaveLength(1);
    expect((await listAuditEvents(t.ledger, {}, { limit: 10_000 })).items).toHaveLength(6);
  });

  it("does not treat a prefix without the .* suffix as a prefix", async () => {
    await seed();
    expect((await listAuditEvents(t.ledger, { action: "contract." }, { limit: 50 })).items).toEqual([]);
  });
});
