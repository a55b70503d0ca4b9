// Replay with edited arguments: which phases may be replayed, who may, the NON_RETRYABLE replay that waits for a second
// person, the links both ways, and refusals that write nothing.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, bob, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { bobsKey, otherAgent, viewer } from "@/tests/helpers/ledger-model-authority";
import { codeOf, dispatch, outcome, planAndClaim } from "@/tests/helpers/lifecycle";
import { LedgerError } from "@/lib/ledger/errors";
import { approveOperation, rejectOperation } from "./approval";
import { claimLease } from "./lease";
import { planOperation } from "./plan";
import { replayKey, replayOperation } from "./replay";
import { getOperation } from "@/lib/ledger/reads/operations";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "payments.charge", "IDEMPOTENT");
  await withContract(t.ledger, "email.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
});
afterEach(async () => t.close());

/** A refusal's code, whichever kind of error carries it. */
async function refusal(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "resolved",
    (e: unknown) => (e instanceof LedgerError ? e.code : `unexpected: ${String(e)}`),
  );
}

async function confirmed(tool: string, args: unknown, key?: string) {
  const { id, fence } = await planAndClaim(
    t.ledger,
    { tool, args, ...(key ? { idempotencyKey: key } : {}), runId: "run-1", agentId: "agent-7" },
    T0,
  );
  await dispatch(t.ledger, id, fence, at(1));
  await outcome(t.ledger, id, { fence, result: "confirmed", providerId: "p-1" }, at(2));
  return id;
}

async function written(): Promise<{ operations: number; audit: number }> {
  return { operations: await t.db.operation.count(), audit: await t.db.auditEvent.count() };
}

describe("replayOperation", () => {
  it("plans a new operation with a new key, the edited args, the original's run, agent and planning key", async () => {
    const original = await confirmed("payments.charge", { customer: "cus_1", amount: 5 }, "k1");
    const replay = await replayOperation(
      t.ledger,
      original,
      { args: { customer: "cus_1", amount: 6 }, reason: "amount was wrong" },
      alice,
      at(10),
    );
    expect(replay).toMatchObject({
      phase: "PLANNED",
      attempt: 0,
      replayOf: original,
      runId: "run-1",
      agentId: "agent-7",
      args: { customer: "cus_1", amount: 6 },
      idempotencyKey: replayKey(original, 1),
    });
    expect(replay.id).not.toBe(original);
    expect(replay.decision.action).toBe("DISPATCH");
    const row = await t.db.operation.findUniqueOrThrow({ where: { id: replay.id } });
    expect(row.plannedByKeyId).toBe(agent.id);
    expect(row.approvalRequestedBy).toBe(`user:${alice.id}`);
    // The agent's workers may claim it: it is the planning key's own operation.
    const lease = await claimLease(t.ledger, replay.id, { workerId: "w2", leaseMs: 30_000 }, agent, at(11));
    expect(lease.fence).toBe(1);
    // The new one is searchable by its arguments like any other.
    expect(await t.db.operationSearchTerm.count({ where: { operationId: replay.id, term: "6" } })).toBe(1);
  });

  it("links the original and the replay both ways, and audits both in the same transaction", async () => {
    const original = await confirmed("payments.charge", { amount: 5 }, "k1");
    const replay = await replayOperation(t.ledger, original, { reason: "send it again" }, alice, at(10));
    expect(replay.args).toEqual({ amount: 5 });
    const before = await getOperation(t.ledger, original, at(11));
    expect(before.replays).toEqual([replay.id]);
    expect(before.replayOf).toBeNull();
    const after = await getOperation(t.ledger, replay.id, at(11));
    expect(after.replayOf).toBe(original);
    expect(after.replays).toEqual([]);
    const replayed = before.audit.find((e) => e.action === "operation.replayed");
    expect(replayed).toMatchObject({ actorId: alice.id, reason: "send it again", data: { replay: replay.id } });
    expect(after.audit.map((e) => e.action)).toEqual(["operation.planned"]);
    expect(after.audit[0]).toMatchObject({ reason: "send it again", data: { replayOf: original, argsChanged: false } });
  });

  it("holds a NON_RETRYABLE replay for a second person: the replaying person cannot approve it, another can", async () => {
    const original = await confirmed("email.send", { to: "ada@example.test" });
    const replay = await replayOperation(
      t.ledger,
      original,
      { args: { to: "ada@example.org" }, reason: "wrong address" },
      alice,
      at(10),
    );
    expect(replay.phase).toBe("AWAITING_APPROVAL");
    expect(replay.decision.action).toBe("APPROVAL");
    expect(replay.approvalExpiresAt).not.toBeNull();
    expect(
      await codeOf(approveOperation(t.ledger, replay.id, { reason: "me" }, alice, at(11), { fourEyes: true })),
    ).toBe("four_eyes");
    expect(
      await codeOf(approveOperation(t.ledger, replay.id, { reason: "x" }, agent, at(11), { fourEyes: true })),
    ).toBe("person_required");
    const approved = await approveOperation(t.ledger, replay.id, { reason: "checked" }, bob, at(12), {
      fourEyes: true,
    });
    expect(approved.phase).toBe("PLANNED");
    expect(approved.approvedAttempt).toBe(1);
  });

  it.each([
    ["FAILED", "failed"],
    ["REJECTED", "rejected"],
  ] as const)("replays a %s operation", async (phase, how) => {
    const { id, fence } = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: { a: 1 }, idempotencyKey: "k1" },
      T0,
    );
    if (how === "failed") {
      await dispatch(t.ledger, id, fence, at(1));
      await outcome(t.ledger, id, { fence, result: "failed", error: { httpStatus: 400, message: "bad" } }, at(2));
    } else {
      await rejectOperation(t.ledger, id, { reason: "no" }, alice, at(1));
    }
    expect((await getOperation(t.ledger, id, at(3))).phase).toBe(phase);
    expect((await replayOperation(t.ledger, id, { reason: "again" }, alice, at(4))).replayOf).toBe(id);
  });

  it("refuses a live operation (planned, dispatched, unknown) with nothing written", async () => {
    const { id, fence } = await planAndClaim(
      t.ledger,
      { tool: "payments.charge", args: { a: 1 }, idempotencyKey: "k1" },
      T0,
    );
    const before = await written();
    expect(await refusal(replayOperation(t.ledger, id, { reason: "r" }, alice, at(1)))).toBe("not_replayable");
    await dispatch(t.ledger, id, fence, at(1));
    expect(await refusal(replayOperation(t.ledger, id, { reason: "r" }, alice, at(2)))).toBe("not_replayable");
    await outcome(t.ledger, id, { fence, result: "unknown" }, at(2));
    expect(await refusal(replayOperation(t.ledger, id, { reason: "r" }, alice, at(3)))).toBe("not_replayable");
    const after = await written();
    expect(after.operations).toBe(before.operations);
  });

  it("refuses a second replay while the first may still run, and allows it once the first is over", async () => {
    const original = await confirmed("email.send", { to: "a" });
    const first = await replayOperation(t.ledger, original, { reason: "one" }, alice, at(10));
    const before = await written();
    expect(await refusal(replayOperation(t.ledger, original, { reason: "two" }, bob, at(11)))).toBe("replay_pending");
    expect(await written()).toEqual(before);
    await rejectOperation(t.ledger, first.id, { reason: "not this one" }, bob, at(12));
    const second = await replayOperation(t.ledger, original, { reason: "two" }, bob, at(13));
    expect(second.idempotencyKey).toBe(replayKey(original, 2));
    expect((await getOperation(t.ledger, original, at(14))).replays).toEqual([first.id, second.id]);
  });

  it("lets only one of two simultaneous replays through", async () => {
    const original = await confirmed("payments.charge", { a: 1 }, "k1");
    const results = await Promise.allSettled([
      replayOperation(t.ledger, original, { reason: "alice" }, alice, at(10)),
      replayOperation(t.ledger, original, { reason: "bob" }, bob, at(10)),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected");
    expect((rejected as PromiseRejectedResult).reason).toMatchObject({ code: "replay_pending" });
    expect(await t.db.operation.count({ where: { replayOf: original } })).toBe(1);
  });

  it.each([
    ["an array", [1, 2]],
    ["a string", "cus_1"],
    ["null", null],
    ["too large", { blob: "x".repeat(256 * 1024) }],
  ])("refuses arguments that are %s with 422 invalid_args, nothing written", async (_what, args) => {
    const original = await confirmed("payments.charge", { a: 1 }, "k1");
    const before = await written();
    const error = await replayOperation(t.ledger, original, { args, reason: "r" }, alice, at(10)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LedgerError);
    expect(error).toMatchObject({ code: "invalid_args", status: 422 });
    expect(await written()).toEqual(before);
  });

  it("needs a person: an agent key gets person_required on its own operation and not_found on another's", async () => {
    const original = await confirmed("payments.charge", { a: 1 }, "k1");
    const before = await written();
    expect(await refusal(replayOperation(t.ledger, original, { reason: "r" }, agent, at(10)))).toBe("person_required");
    expect(await refusal(replayOperation(t.ledger, original, { reason: "r" }, otherAgent, at(10)))).toBe("not_found");
    expect(await refusal(replayOperation(t.ledger, original, { reason: "r" }, viewer, at(10)))).toBe("person_required");
    expect(await refusal(replayOperation(t.ledger, "01NOSUCHOPERATION000000000", { reason: "r" }, alice, at(10)))).toBe(
      "not_found",
    );
    expect(await written()).toEqual(before);
    // A key bound to a person replays as that person.
    const replay = await replayOperation(t.ledger, original, { reason: "chat-ops" }, bobsKey, at(11));
    const row = await t.db.operation.findUniqueOrThrow({ where: { id: replay.id } });
    expect(row.approvalRequestedBy).toBe(`user:${bob.id}`);
    expect(row.plannedByKeyId).toBe(agent.id);
  });

  it("plans under the tool's current contract", async () => {
    const original = await confirmed("payments.charge", { a: 1 }, "k1");
    await withContract(t.ledger, "payments.charge", "IDEMPOTENT", { maxAttempts: 5 });
    const replay = await replayOperation(t.ledger, original, { reason: "r" }, alice, at(10));
    expect(replay.contractVersion).toBe(2);
    expect(replay.maxAttempts).toBe(5);
    const plan = await planOperation(
      t.ledger,
      { tool: "payments.charge", args: { a: 1 }, idempotencyKey: "k1" },
      agent,
      at(11),
    );
    expect(plan.operation.id).toBe(original);
  });
});
