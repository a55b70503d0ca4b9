// docs/authority.md on a real database, tried as an attacker would: only a person opens the human gate, four-eyes and
// the quorum count principals by id, every key stays in its own operations, and approvals expire.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/ledger/actor";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, bob, otherAgent, T0, viewer, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf } from "@/tests/helpers/lifecycle";
import { getOperation, listOperations } from "@/lib/ledger/reads/operations";
import { approveOperation, rejectOperation } from "./approval";
import { dispatchOperation } from "./dispatch";
import { expireApprovals } from "./expire-approvals";
import { handOverOperations } from "./hand-over";
import { claimLease, heartbeatLease } from "./lease";
import { reportOutcome } from "./outcome";
import { planOperation } from "./plan";
import { reconcileOperation } from "./reconcile";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "email.send", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
  await withContract(t.ledger, "wire.send", "NON_RETRYABLE", { idempotencyKey: "unsupported", approvals: 2 });
  await withContract(t.ledger, "deploy.run", "NON_RETRYABLE", { approval: "required", approvalTtlMs: 60_000 });
});
afterEach(async () => t.close());

const bootstrap: Actor = {
  type: "api_key",
  id: "bootstrap-key",
  label: "bootstrap (opl_b…)",
  scopes: ["agent", "operator", "admin", "metrics"],
  person: null,
};
/** Alice's own key: it plans as an agent and acts as Alice. */
const alicesKey: Actor = {
  type: "api_key",
  id: "alice-key",
  label: "alice-bot (opl_a…)",
  scopes: ["agent", "operator"],
  person: { id: alice.id, label: alice.label, role: "operator" },
};

/** A NON_RETRYABLE call whose first attempt failed: the retry waits for a person. */
async function failed(tool: string, by: Actor = agent) {
  const { operation } = await planOperation(t.ledger, { tool, args: { to: "x@y.z" } }, by, T0);
  const { fence } = await claimLease(t.ledger, operation.id, { workerId: "w1", leaseMs: 60_000 }, by, T0);
  await dispatchOperation(t.ledger, operation.id, { fence }, by, at(1));
  const after = await reportOutcome(
    t.ledger,
    operation.id,
    { fence, result: "failed", error: { httpStatus: 503 } },
    by,
    at(2),
  );
  expect(after.phase).toBe("AWAITING_APPROVAL");
  return { id: operation.id, fence };
}

/** A NON_RETRYABLE call whose answer was lost: UNKNOWN. */
async function lost(by: Actor = agent) {
  const { operation } = await planOperation(t.ledger, { tool: "email.send", args: { to: "a@b.c" } }, by, T0);
  const { fence } = await claimLease(t.ledger, operation.id, { workerId: "w1", leaseMs: 60_000 }, by, T0);
  await dispatchOperation(t.ledger, operation.id, { fence }, by, at(1));
  await reportOutcome(t.ledger, operation.id, { fence, result: "unknown" }, by, at(2));
  return { id: operation.id, fence };
}

describe("the human gate", () => {
  it("refuses an agent's reconcile with approveRetry: nothing changes and the second attempt never goes", async () => {
    const { id, fence } = await lost();
    const before = await getOperation(t.ledger, id, at(3));
    const asked = reconcileOperation(
      t.ledger,
      id,
      { fence, outcome: "not_applied", evidence: { checked: "inbox" }, approveRetry: true },
      agent,
      at(3),
    );
    expect(await codeOf(asked)).toBe("person_required");
    const after = await getOperation(t.ledger, id, at(4));
    expect(after).toMatchObject({ phase: "UNKNOWN", approvedAttempt: null, evidence: "none", attempt: 1 });
    expect(after.audit).toHaveLength(before.audit.length);
    const again = await dispatchOperation(t.ledger, id, { fence }, agent, at(5));
    expect("refused" in again && again.refused.code).toBe("reconcile_required");
  });

  it("lets an agent reconcile with evidence alone, and the retry then waits for a person", async () => {
    const { id, fence } = await lost();
    const reconciled = await reconcileOperation(
      t.ledger,
      id,
      { fence, outcome: "not_applied", evidence: {} },
      agent,
      at(3),
    );
    expect(reconciled).toMatchObject({ phase: "RECONCILED", approvedAttempt: null, fence: fence + 1 });
    const lease = await claimLease(t.ledger, id, { workerId: "w1", leaseMs: 60_000 }, agent, at(4));
    const refused = await dispatchOperation(t.ledger, id, { fence: lease.fence }, agent, at(4));
    expect("refused" in refused && refused.refused.code).toBe("approval_required");
  });

  it.each([
    ["an agent key", agent],
    ["the bootstrap key (no person)", bootstrap],
    ["a viewer", viewer],
  ])("refuses an approval from %s", async (_name, actor) => {
    const { id } = await failed("email.send");
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "go" }, actor, at(3), { fourEyes: false }))).toBe(
      "person_required",
    );
    expect((await getOperation(t.ledger, id, at(4))).phase).toBe("AWAITING_APPROVAL");
  });

  it("applies four-eyes by principal id: a person never approves what their own key planned, whatever it claims", async () => {
    const { id } = await failed("email.send", alicesKey);
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "mine" }, alice, at(3)))).toBe("four_eyes");
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "mine" }, alicesKey, at(3)))).toBe("four_eyes");
    const approved = await approveOperation(t.ledger, id, { reason: "checked" }, bob, at(4));
    expect(approved).toMatchObject({ phase: "RETRY_SCHEDULED", approvedAttempt: 2 });
    const audit = (await getOperation(t.ledger, id, at(5))).audit.find((a) => a.action === "operation.approved");
    expect(audit).toMatchObject({ actorType: "user", actorId: bob.id });
  });

  it("lets a team of one approve its own key's request with four-eyes off", async () => {
    const { id } = await failed("email.send", alicesKey);
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "solo" }, alice, at(3), { fourEyes: false }))).toBe(
      "resolved",
    );
  });

  it("records a key bound to a person as that person, by ids", async () => {
    const { id } = await failed("email.send");
    await approveOperation(t.ledger, id, { reason: "from chat-ops" }, alicesKey, at(3));
    const audit = (await getOperation(t.ledger, id, at(4))).audit.find((a) => a.action === "operation.approved");
    expect(audit).toMatchObject({ actorType: "api_key", actorId: "alice-key", onBehalfOf: alice.id });
  });

  it("needs the quorum's distinct persons before an attempt is granted", async () => {
    const { id, fence } = await failed("wire.send");
    const first = await approveOperation(t.ledger, id, { reason: "one" }, alice, at(3));
    expect(first).toMatchObject({ phase: "AWAITING_APPROVAL", approvedAttempt: null });
    expect(await codeOf(approveOperation(t.ledger, id, { reason: "again" }, alicesKey, at(4)))).toBe(
      "already_approved",
    );
    const refused = await dispatchOperation(t.ledger, id, { fence }, agent, at(5));
    expect("refused" in refused && refused.refused.code).toBe("approval_required");
    const second = await approveOperation(t.ledger, id, { reason: "two" }, bob, at(6));
    expect(second).toMatchObject({ phase: "RETRY_SCHEDULED", approvedAttempt: 2 });
    const actions = (await getOperation(t.ledger, id, at(7))).audit.map((a) => a.action);
    expect(actions.filter((a) => a === "operation.approval_given")).toHaveLength(1);
    expect(actions.filter((a) => a === "operation.approved")).toHaveLength(1);
  });

  it("lets a person approve a retry with the reconciliation, and grants exactly one attempt", async () => {
    const { id } = await lost();
    const reconciled = await reconcileOperation(
      t.ledger,
      id,
      { outcome: "not_applied", evidence: { checked: "provider dashboard" }, approveRetry: true },
      alice,
      at(3),
    );
    expect(reconciled).toMatchObject({ phase: "RECONCILED", approvedAttempt: 2 });
    const lease = await claimLease(t.ledger, id, { workerId: "w1", leaseMs: 60_000 }, agent, at(4));
    const sent = await dispatchOperation(t.ledger, id, { fence: lease.fence }, agent, at(4));
    expect("operation" in sent && sent.operation.attempt).toBe(2);
  });
});

describe("own operations", () => {
  it("answers another agent key as if the operation did not exist, on every command and read", async () => {
    const { id, fence } = await failed("email.send");
    const tries = [
      () => claimLease(t.ledger, id, { workerId: "x", leaseMs: 1000 }, otherAgent, at(3)),
      () => heartbeatLease(t.ledger, id, { fence, leaseMs: 1000 }, otherAgent, at(3)),
      () => dispatchOperation(t.ledger, id, { fence }, otherAgent, at(3)),
      () => reportOutcome(t.ledger, id, { fence, result: "confirmed" }, otherAgent, at(3)),
      () => reconcileOperation(t.ledger, id, { outcome: "applied", evidence: {} }, otherAgent, at(3)),
      () => rejectOperation(t.ledger, id, { reason: "not mine" }, otherAgent, at(3)),
      () => approveOperation(t.ledger, id, { reason: "not mine" }, otherAgent, at(3)),
      () => getOperation(t.ledger, id, at(3), otherAgent.id),
    ];
    for (const attempt of tries) expect(await codeOf(attempt())).toBe("not_found");
    expect(await codeOf(getOperation(t.ledger, "01NOSUCHOPERATION", at(3), otherAgent.id))).toBe("not_found");
    expect(
      (await listOperations(t.ledger, { plannedByKeyId: otherAgent.id }, { limit: 50 }, at(3))).items,
    ).toHaveLength(0);
    expect((await listOperations(t.ledger, { plannedByKeyId: agent.id }, { limit: 50 }, at(3))).items).toHaveLength(1);
    expect((await getOperation(t.ledger, id, at(4))).audit.map((a) => a.action)).not.toContain("operation.rejected");
  });

  it("keeps the bootstrap key in the agent's lane for claims, but lets it reconcile and reject any operation", async () => {
    const { id, fence } = await lost();
    expect(await codeOf(claimLease(t.ledger, id, { workerId: "x", leaseMs: 1000 }, bootstrap, at(70_000)))).toBe(
      "not_found",
    );
    expect(
      await codeOf(reconcileOperation(t.ledger, id, { fence, outcome: "applied", evidence: {} }, bootstrap, at(3))),
    ).toBe("resolved");
  });

  it("lets an agent key reject (give up) its own operation", async () => {
    const { id } = await failed("email.send");
    expect((await rejectOperation(t.ledger, id, { reason: "user cancelled" }, agent, at(3))).phase).toBe("REJECTED");
  });

  it("refuses another key's idempotency key without showing its operation", async () => {
    await planOperation(t.ledger, { tool: "deploy.run", args: { v: 1 }, idempotencyKey: "k1" }, agent, T0);
    const reused = planOperation(
      t.ledger,
      { tool: "deploy.run", args: { v: 1 }, idempotencyKey: "k1" },
      otherAgent,
      T0,
    );
    expect(await codeOf(reused)).toBe("idempotency_key_reused");
    await reused.catch((e: { extra: Record<string, unknown> }) => expect(e.extra.operationId).toBeUndefined());
  });
});

describe("approvals expire", () => {
  it("moves a request nobody decided to EXPIRED after the contract's TTL, audited as opledger", async () => {
    const { operation } = await planOperation(t.ledger, { tool: "deploy.run", args: { v: 2 } }, agent, T0);
    expect(operation.phase).toBe("AWAITING_APPROVAL");
    expect(await expireApprovals(t.ledger, at(60_000))).toBe(0);
    expect(await expireApprovals(t.ledger, at(60_001))).toBe(1);
    const detail = await getOperation(t.ledger, operation.id, at(60_002));
    expect(detail.phase).toBe("EXPIRED");
    expect(detail.decision.action).toBe("STOP");
    expect(detail.audit.at(-1)).toMatchObject({ action: "operation.approval_expired", actorType: "system" });
    expect(await codeOf(approveOperation(t.ledger, operation.id, { reason: "late" }, alice, at(60_003)))).toBe(
      "approval_expired",
    );
    const claim = claimLease(t.ledger, operation.id, { workerId: "w", leaseMs: 1000 }, agent, at(60_004));
    expect(await codeOf(claim)).toBe("approval_expired");
  });

  it("gives a NON_RETRYABLE retry's request the default 24 hours", async () => {
    const { id } = await failed("email.send");
    expect(await expireApprovals(t.ledger, at(24 * 3_600_000))).toBe(0);
    expect(await expireApprovals(t.ledger, at(24 * 3_600_000 + 3))).toBe(1);
    expect((await getOperation(t.ledger, id, at(24 * 3_600_000 + 4))).phase).toBe("EXPIRED");
  });
});

describe("key rotation", () => {
  it("hands an agent's operations to its new key, and the old key loses them", async () => {
    const { id, fence } = await lost();
    const moved = await handOverOperations(t.ledger, { fromKeyIds: [agent.id], toKeyId: otherAgent.id }, alice, at(3));
    expect(moved).toBe(1);
    expect(await codeOf(getOperation(t.ledger, id, at(4), agent.id))).toBe("not_found");
    const reconciled = await reconcileOperation(
      t.ledger,
      id,
      { fence, outcome: "applied", evidence: {} },
      otherAgent,
      at(5),
    );
    expect(reconciled.phase).toBe("RECONCILED");
    const audit = (await getOperation(t.ledger, id, at(6))).audit;
    expect(audit.at(-1)).toMatchObject({ action: "operation.reconciled", actorId: otherAgent.id });
  });
});

describe("keys of a demoted person", () => {
  it("lose the scopes their person no longer has", async () => {
    const { createUser } = await import("@/lib/platform/auth/users");
    const { createApiKey, verifyApiKey } = await import("@/lib/platform/auth/api-keys");
    const system: Actor = { type: "system", id: "system", label: "test" };
    const olga = await createUser(
      t.ledger,
      { email: "olga@example.test", name: "Olga", role: "admin", password: "a long passphrase here" },
      system,
      T0,
    );
    const { key } = await createApiKey(
      t.ledger,
      { name: "olga-bot", scopes: ["agent", "operator", "admin"], ownerUserId: olga.id },
      system,
      T0,
    );
    expect((await verifyApiKey(t.ledger, key, T0))?.actor.scopes).toEqual(["agent", "operator", "admin"]);
    await t.db.user.update({ where: { id: olga.id }, data: { role: "viewer" } });
    const demoted = await verifyApiKey(t.ledger, key, T0);
    expect(demoted?.actor.scopes).toEqual(["agent"]);
    expect(demoted?.key.scopes).toBe("agent");
  });
});
