// Four-eyes against every principal tied to an operation (docs/authority.md#four-eyes-and-quorum), on a real database
// and real keys: person A holds an agent key (agent + operator scopes, bound to A) and an operator key. A's agent key's
// NON_RETRYABLE call is confirmed; person B replays it. Neither A (directly or through either key) nor B may approve
// the replay's attempts, whichever attempt asked, through approve, reconcile with approveRetry or a bulk approve; a
// third person may.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/ledger/actor";
import { createApiKey, verifyApiKey, type KeyActor } from "@/lib/platform/auth/api-keys";
import { createUser } from "@/lib/platform/auth/users";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { at, T0, withContract } from "@/tests/helpers/ledger-fixtures";
import { codeOf } from "@/tests/helpers/lifecycle";
import { getOperation } from "@/lib/ledger/reads/operations";
import { previewBulk } from "../bulk/preview";
import { actOnItem } from "../bulk/act";
import { approveOperation } from "./approval";
import { dispatchOperation } from "./dispatch";
import { fourEyesKeepsOut } from "./key-owners";
import { claimLease } from "./lease";
import { reportOutcome } from "./outcome";
import { planOperation } from "./plan";
import { reconcileOperation } from "./reconcile";
import { replayOperation } from "./replay";

const system: Actor = { type: "system", id: "system", label: "test" };

let t: TestDb;
let personA: Actor;
let personB: Actor;
let personC: Actor;
let agentKeyA: KeyActor;
let operatorKeyA: KeyActor;

async function person(email: string): Promise<Actor> {
  const user = await createUser(
    t.ledger,
    { email, name: email, role: "operator", password: "a long passphrase here" },
    system,
    T0,
  );
  return { type: "user", id: user.id, label: email, role: "operator" };
}

async function key(name: string, scopes: ("agent" | "operator")[], owner: Actor): Promise<KeyActor> {
  const { key: secret } = await createApiKey(t.ledger, { name, scopes, ownerUserId: owner.id }, system, T0);
  const verified = await verifyApiKey(t.ledger, secret, T0);
  if (!verified) throw new Error("the key just made does not verify");
  return verified.actor;
}

beforeEach(async () => {
  t = await createTestDb();
  await withContract(t.ledger, "charge.card", "NON_RETRYABLE", { idempotencyKey: "unsupported" });
  personA = await person("a@example.test");
  personB = await person("b@example.test");
  personC = await person("c@example.test");
  agentKeyA = await key("a-agent", ["agent", "operator"], personA);
  operatorKeyA = await key("a-ops", ["operator"], personA);
});
afterEach(async () => t.close());

/** Claim, dispatch and report `result` for the attempt the operation is at, as A's agent key. */
async function attempt(id: string, result: "confirmed" | "failed" | "unknown", ms: number) {
  const { fence } = await claimLease(t.ledger, id, { workerId: "w1", leaseMs: 60_000 }, agentKeyA, at(ms));
  const sent = await dispatchOperation(t.ledger, id, { fence }, agentKeyA, at(ms + 1));
  expect("refused" in sent).toBe(false);
  const error = result === "failed" ? { httpStatus: 503 } : undefined;
  return reportOutcome(t.ledger, id, { fence, result, ...(error ? { error } : {}) }, agentKeyA, at(ms + 2));
}

/** X by A's agent key, confirmed; B replays it: R waits for approval. */
async function replayedByB(): Promise<string> {
  const { operation } = await planOperation(t.ledger, { tool: "charge.card", args: { cents: 500 } }, agentKeyA, T0);
  expect((await attempt(operation.id, "confirmed", 10)).phase).toBe("CONFIRMED");
  const replay = await replayOperation(t.ledger, operation.id, { reason: "charge again" }, personB, at(100));
  expect(replay.phase).toBe("AWAITING_APPROVAL");
  return replay.id;
}

const approve = (id: string, actor: Actor, ms: number) =>
  approveOperation(t.ledger, id, { reason: "go" }, actor, at(ms), { fourEyes: true });

describe("four-eyes on a replay: three principals of one person, and the replayer", () => {
  it("refuses A (directly, through the operator key, through the agent key) and B the replay's first attempt", async () => {
    const id = await replayedByB();
    for (const [n, actor] of [personA, operatorKeyA, agentKeyA, personB].entries()) {
      expect(await codeOf(approve(id, actor, 200 + n))).toBe("four_eyes");
    }
    const after = await getOperation(t.ledger, id, at(300));
    expect(after).toMatchObject({ phase: "AWAITING_APPROVAL", approvedAttempt: null });
    expect(
      after.audit.filter((e) => e.action.startsWith("operation.approv") && e.action !== "operation.approval_requested"),
    ).toEqual([]);
  });

  it("refuses A and B the retry A's agent key's failure asks for, and lets a third person grant it", async () => {
    const id = await replayedByB();
    expect((await approve(id, personC, 200)).phase).toBe("PLANNED");
    expect((await attempt(id, "failed", 300)).phase).toBe("AWAITING_APPROVAL");
    for (const [n, actor] of [operatorKeyA, personA, agentKeyA, personB].entries()) {
      expect(await codeOf(approve(id, actor, 400 + n))).toBe("four_eyes");
    }
    expect((await getOperation(t.ledger, id, at(500))).phase).toBe("AWAITING_APPROVAL");
    expect((await approve(id, personC, 600)).phase).toBe("RETRY_SCHEDULED");
  });

  it("refuses A and B a retry granted with a reconciliation of the replay", async () => {
    const id = await replayedByB();
    await approve(id, personC, 200);
    expect((await attempt(id, "unknown", 300)).phase).toBe("UNKNOWN");
    const reconcile = (actor: Actor, ms: number) =>
      reconcileOperation(
        t.ledger,
        id,
        { outcome: "not_applied", evidence: { checked: "provider" }, approveRetry: true },
        actor,
        at(ms),
        { fourEyes: true },
      );
    for (const [n, actor] of [operatorKeyA, personA, personB].entries()) {
      expect(await codeOf(reconcile(actor, 400 + n))).toBe("four_eyes");
    }
    expect((await getOperation(t.ledger, id, at(500))).phase).toBe("UNKNOWN");
    expect(await reconcile(personC, 600)).toMatchObject({ phase: "RECONCILED", approvedAttempt: 2 });
  });

  it("leaves the replay out of A's bulk approve, and a bulk item run as A is refused by the command", async () => {
    const id = await replayedByB();
    const preview = await previewBulk(t.ledger, { action: "approve", ids: [id] }, operatorKeyA, at(200), {
      fourEyes: true,
    });
    expect(preview.items).toEqual([]);
    expect(preview.skipped).toMatchObject([{ id, why: "four_eyes" }]);
    const op = await t.db.operation.findUniqueOrThrow({ where: { id } });
    const job = { jobId: "job-1", request: { action: "approve" as const, ids: [id] }, reason: "go", actor: personA };
    expect(await actOnItem(t.ledger, job, op, at(300))).toMatchObject({ result: "failed", detail: /^four_eyes/ });
    expect((await getOperation(t.ledger, id, at(400))).phase).toBe("AWAITING_APPROVAL");
    const byC = await previewBulk(t.ledger, { action: "approve", ids: [id] }, personC, at(500), { fourEyes: true });
    expect(byC.items).toMatchObject([{ id, willDo: "approve" }]);
  });

  it("tells the console whom to offer the approval: neither A nor B, a third person, anyone with four-eyes off", async () => {
    const id = await replayedByB();
    for (const actor of [personA, operatorKeyA, agentKeyA, personB]) {
      expect(await fourEyesKeepsOut(t.ledger, id, actor, true)).toBe(true);
    }
    expect(await fourEyesKeepsOut(t.ledger, id, personC, true)).toBe(false);
    expect(await fourEyesKeepsOut(t.ledger, id, personA, false)).toBe(false);
  });
});
