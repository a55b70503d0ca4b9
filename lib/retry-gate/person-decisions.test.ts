// Where a person's decision sends an operation: the rows the ledger writes and the console shows before it answers.
import { describe, expect, it } from "vitest";
import {
  afterApproval,
  afterReconciliation,
  completesQuorum,
  grantsRetry,
  reconciledUnderQuorum,
} from "./person-decisions";

describe("afterApproval", () => {
  it.each([
    [0, "PLANNED", 1],
    [1, "RETRY_SCHEDULED", 2],
    [4, "RETRY_SCHEDULED", 5],
  ])("after %i attempts: %s, granting attempt %i", (attempt, phase, approvedAttempt) => {
    expect(afterApproval({ attempt })).toEqual({ phase, approvedAttempt });
  });
});

describe("afterReconciliation", () => {
  const op = { attempt: 2, providerId: "ch_old", approvedAttempt: 2 };

  it("keeps the provider id given for an effect that happened, else the operation's", () => {
    expect(afterReconciliation(op, { outcome: "applied", providerId: "ch_new" }).providerId).toBe("ch_new");
    expect(afterReconciliation(op, { outcome: "applied" }).providerId).toBe("ch_old");
    expect(afterReconciliation(op, { outcome: "not_applied", providerId: "ch_new" }).providerId).toBe("ch_old");
  });

  it("grants exactly the next attempt only for 'did not happen' with approveRetry", () => {
    expect(afterReconciliation(op, { outcome: "not_applied", approveRetry: true })).toEqual({
      phase: "RECONCILED",
      evidence: "not_applied",
      providerId: "ch_old",
      approvedAttempt: 3,
    });
    expect(afterReconciliation(op, { outcome: "not_applied" }).approvedAttempt).toBe(2);
    expect(afterReconciliation(op, { outcome: "applied", approveRetry: true }).approvedAttempt).toBe(2);
    expect([
      grantsRetry({ outcome: "not_applied", approveRetry: true }),
      grantsRetry({ outcome: "applied", approveRetry: true }),
    ]).toEqual([true, false]);
  });
});

describe("completesQuorum", () => {
  it("is true only for the approval that reaches the quorum", () => {
    expect(completesQuorum(0, 1)).toBe(true);
    expect(completesQuorum(0, 2)).toBe(false);
    expect(completesQuorum(1, 2)).toBe(true);
    expect(completesQuorum(1, 3)).toBe(false);
    expect(completesQuorum(2, 3)).toBe(true);
  });
});

describe("reconciledUnderQuorum", () => {
  const op = { attempt: 2, providerId: null, approvedAttempt: null };
  const retry = { outcome: "not_applied" as const, approveRetry: true };

  it("grants the next attempt when one approval is the quorum", () => {
    expect(reconciledUnderQuorum(op, retry, 1)).toMatchObject({
      phase: "RECONCILED",
      approvedAttempt: 3,
      awaitsQuorum: false,
    });
  });

  it("waits for the others under a larger quorum, granting nothing yet", () => {
    expect(reconciledUnderQuorum(op, retry, 2)).toMatchObject({
      phase: "AWAITING_APPROVAL",
      approvedAttempt: null,
      evidence: "not_applied",
      awaitsQuorum: true,
    });
  });

  it("never waits when no retry is approved", () => {
    expect(reconciledUnderQuorum(op, { outcome: "applied" }, 3)).toMatchObject({
      phase: "RECONCILED",
      awaitsQuorum: false,
    });
  });
});
