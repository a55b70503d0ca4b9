// What the operation page shows after a person's action, before and after the ledger answers: the buttons offered, the
// optimistic state (the ledger's own rules for approval, quorum and reconciliation) and the success sentence.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { OperationDetail } from "@/lib/ledger/reads/operations";
import { PHASES, EFFECT_EVIDENCE } from "@/lib/retry-gate/types";
import { actionsFor, optimisticDetail, seenOf, successText, type ActionRequest } from "./action-effects";

const waiting: OperationDetail = {
  id: "01JOP",
  tool: "payments.charge",
  contractVersion: 2,
  effect: "NON_RETRYABLE",
  idempotencyKey: "key-1",
  args: { amount: 100 },
  runId: null,
  agentId: "billing-agent",
  via: null,
  wouldHave: null,
  replayOf: null,
  repeatOf: null,
  deliveredAt: null,
  traceId: null,
  phase: "AWAITING_APPROVAL",
  attempt: 1,
  maxAttempts: 3,
  evidence: "none",
  evidenceDetail: null,
  providerId: null,
  approvedAttempt: null,
  approvalExpiresAt: "2026-01-01T12:00:00.000Z",
  approvals: { given: 0, needed: 1 },
  rejectionReason: null,
  lastError: null,
  notBefore: null,
  leaseOwner: null,
  leaseExpiresAt: null,
  fence: 4,
  createdAt: "2026-01-01T10:00:00.000Z",
  updatedAt: "2026-01-01T10:05:00.000Z",
  decision: { action: "APPROVAL", reason: "A person must approve every retry of a NON_RETRYABLE tool." },
  attempts: [],
  audit: [],
  replays: [],
  repeated: null,
};
const unknown: OperationDetail = { ...waiting, phase: "UNKNOWN", approvalExpiresAt: null };

const approve = (op: OperationDetail, reason = "checked"): ActionRequest => ({
  kind: "approve",
  reason,
  seen: seenOf(op),
  approvals: op.approvals,
});
const reconcile = (op: OperationDetail, answer: Partial<Extract<ActionRequest, { kind: "reconcile" }>>) =>
  ({
    kind: "reconcile",
    reason: "looked it up",
    seen: seenOf(op),
    approvals: op.approvals,
    outcome: "not_applied",
    approveRetry: false,
    ...answer,
  }) as const;

/** A quorum a contract may ask (1–10 people) and how many have approved so far, always short of it. */
const quorum = fc
  .integer({ min: 1, max: 10 })
  .chain((needed) => fc.record({ needed: fc.constant(needed), given: fc.integer({ min: 0, max: needed - 1 }) }));

describe("actionsFor", () => {
  it("offers approve and reject on a waiting request, reconcile on an unknown outcome", () => {
    expect(actionsFor(waiting)).toEqual(["approve", "reject"]);
    expect(actionsFor(unknown)).toEqual(["reconcile"]);
    expect(actionsFor({ phase: "RECONCILED", evidence: "applied" })).toEqual([]);
  });

  it("never offers an approval to a person four-eyes ties to the operation, and takes nothing else away", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PHASES), fc.constantFrom(...EFFECT_EVIDENCE), (phase, evidence) => {
        const free = actionsFor({ phase, evidence });
        const tied = actionsFor({ phase, evidence }, true);
        expect(tied).not.toContain("approve");
        expect(tied).toEqual(free.filter((action) => action !== "approve"));
      }),
    );
  });
});

describe("seenOf", () => {
  it("keeps the fields a person's decision changes, not the fence or times a worker also moves", () => {
    expect(seenOf({ ...waiting, approvedAttempt: 2 })).toEqual({
      phase: "AWAITING_APPROVAL",
      attempt: 1,
      approvedAttempt: 2,
      evidence: "none",
    });
  });
});

describe("optimisticDetail", () => {
  it("grants the next attempt as a retry when the approval completes the quorum", () => {
    const after = optimisticDetail(waiting, approve(waiting));
    expect(after).toMatchObject({ phase: "RETRY_SCHEDULED", approvedAttempt: 2, approvals: { given: 0, needed: 1 } });
  });

  it("plans a first attempt again when the approval was asked before any attempt", () => {
    const first = { ...waiting, attempt: 0 };
    expect(optimisticDetail(first, approve(first))).toMatchObject({ phase: "PLANNED", approvedAttempt: 1 });
  });

  it("counts an approval the quorum still waits beyond, and only the last one moves the operation on", () => {
    fc.assert(
      fc.property(quorum, fc.integer({ min: 0, max: 99 }), ({ given, needed }, attempt) => {
        const op = { ...waiting, attempt, approvals: { given, needed } };
        const after = optimisticDetail(op, approve(op));
        if (given + 1 < needed) {
          expect(after).toEqual({ ...op, approvals: { given: given + 1, needed } });
        } else {
          expect(after.phase).toBe(attempt === 0 ? "PLANNED" : "RETRY_SCHEDULED");
          expect(after.approvedAttempt).toBe(attempt + 1);
        }
      }),
    );
  });

  it("ends a rejected operation with the person's reason", () => {
    const after = optimisticDetail(waiting, { kind: "reject", reason: "duplicate order", seen: seenOf(waiting) });
    expect(after).toEqual({ ...waiting, phase: "REJECTED", rejectionReason: "rejected by you: duplicate order" });
  });

  it("records an effect that happened with the provider id given, and grants nothing", () => {
    const after = optimisticDetail(unknown, reconcile(unknown, { outcome: "applied", providerId: "ch_1" }));
    expect(after).toMatchObject({
      phase: "RECONCILED",
      evidence: "applied",
      providerId: "ch_1",
      approvedAttempt: null,
    });
  });

  it("grants the next attempt with 'did not happen' and an approval, under a quorum of one", () => {
    const after = optimisticDetail(unknown, reconcile(unknown, { approveRetry: true }));
    expect(after).toMatchObject({ phase: "RECONCILED", evidence: "not_applied", approvedAttempt: 2 });
  });

  it("under a larger quorum, holds 'did not happen' with an approval as the first of the approvals needed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10 }), (needed) => {
        const op = { ...unknown, approvals: { given: 0, needed } };
        const after = optimisticDetail(op, reconcile(op, { approveRetry: true }));
        expect(after).toMatchObject({
          phase: "AWAITING_APPROVAL",
          evidence: "not_applied",
          approvedAttempt: null,
          approvals: { given: 1, needed },
        });
        expect(after).not.toHaveProperty("awaitsQuorum");
      }),
    );
  });

  it("changes only what the decision changes: identity, arguments and history stay as they were", () => {
    const request = fc.oneof(
      fc.constant(approve(waiting)),
      fc.constant<ActionRequest>({ kind: "reject", reason: "no", seen: seenOf(waiting) }),
      fc
        .record({ outcome: fc.constantFrom("applied" as const, "not_applied" as const), approveRetry: fc.boolean() })
        .map((answer) => reconcile(unknown, answer)),
    );
    const decided = new Set(["phase", "approvedAttempt", "approvals", "rejectionReason", "evidence", "providerId"]);
    fc.assert(
      fc.property(request, (v) => {
        const before = v.kind === "reconcile" ? unknown : waiting;
        const after = optimisticDetail(before, v);
        const changed = Object.keys(after).filter(
          (k) =>
            JSON.stringify(after[k as keyof OperationDetail]) !== JSON.stringify(before[k as keyof OperationDetail]),
        );
        for (const key of changed) expect(decided).toContain(key);
        expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      }),
    );
  });
});

describe("successText", () => {
  it.each<[string, ActionRequest, string]>([
    [
      "an approval that grants the attempt",
      approve(waiting),
      "Approved: attempt 2 may be dispatched once. Your approval and reason are in the timeline.",
    ],
    [
      "the first of three approvals",
      approve({ ...waiting, approvals: { given: 0, needed: 3 } }),
      "Your approval is recorded: 1 of 3. Attempt 2 is granted once 2 more people approve before the request expires.",
    ],
    [
      "the second of three approvals",
      approve({ ...waiting, approvals: { given: 1, needed: 3 } }),
      "Your approval is recorded: 2 of 3. Attempt 2 is granted once one more person approves before the request expires.",
    ],
    [
      "a rejection",
      { kind: "reject", reason: "no", seen: seenOf(waiting) },
      "Rejected: no further attempt will be dispatched. Your reason is in the timeline and reaches the agent.",
    ],
    [
      "an effect that happened",
      reconcile(unknown, { outcome: "applied", providerId: "ch_1" }),
      "Reconciled as “effect happened”: the operation is finished and will not be retried.",
    ],
    [
      "an effect that did not happen, no retry asked",
      reconcile(unknown, {}),
      "Reconciled as “effect did not happen”. A retry still needs an approval or the gate's go-ahead.",
    ],
    [
      "an effect that did not happen, with the retry approved",
      reconcile(unknown, { approveRetry: true }),
      "Reconciled as “effect did not happen”, and attempt 2 is approved.",
    ],
    [
      "an effect that did not happen, with the first of two approvals",
      reconcile({ ...unknown, approvals: { given: 0, needed: 2 } }, { approveRetry: true }),
      "Reconciled as “effect did not happen”, with your approval (1 of 2); attempt 2 waits for the others.",
    ],
  ])("%s", (_name, v, text) => {
    expect(successText(v)).toBe(text);
  });

  it("says of every approval how many of the quorum it makes, or that it granted the attempt", () => {
    fc.assert(
      fc.property(quorum, ({ given, needed }) => {
        const op = { ...waiting, approvals: { given, needed } };
        const text = successText(approve(op));
        if (given + 1 === needed) expect(text).toMatch(/^Approved: attempt 2 may be dispatched once\./);
        else expect(text).toContain(`recorded: ${given + 1} of ${needed}.`);
      }),
    );
  });
});
