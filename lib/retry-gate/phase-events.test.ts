// The gate's events against its one transition table: every answer is a move TRANSITIONS lists (or a refused dispatch
// that stays), every move it lists is answered for some event the gate's decision functions produce, and each command's
// event leads where the ledger has always written it.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decide, decideAfterFailure } from "./decide";
import {
  arbClassifiedError,
  arbGateInput,
  contractFor,
  gateInput,
  operation,
  seededRandom,
  NOW,
} from "./gate-arbitraries.test-helper";
import { nextPhase, type PhaseEvent, type PhaseEventType } from "./phase-events";
import { afterApproval, reconciledUnderQuorum } from "./person-decisions";
import { INITIAL_PHASE, IllegalTransitionError, TRANSITIONS, isLegalTransition } from "./phases";
import type { RunBudget } from "./run-allowance";
import { PHASES, type Decision, type Phase } from "./types";

const arbPhase = fc.constantFrom(...PHASES);

/** Every event type: a new one fails the build here until the property below sends it. */
const EVENT_TYPES = Object.keys({
  approval_requested: true,
  dispatched: true,
  dispatch_refused: true,
  confirmed: true,
  outcome_unknown: true,
  failed: true,
  lost_in_flight: true,
  reconciled: true,
  approved: true,
  rejected: true,
  expired: true,
} satisfies Record<PhaseEventType, true>);

const arbRun: fc.Arbitrary<RunBudget | null> = fc.option(
  fc.record({
    runId: fc.constant("run_1"),
    deadlineAt: fc.option(fc.integer({ min: NOW - 100_000, max: NOW + 100_000 }), { nil: null }),
    maxRetries: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
    maxBackoffMs: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
    retriesUsed: fc.integer({ min: 0, max: 4 }),
    backoffUsedMs: fc.integer({ min: 0, max: 100_000 }),
  }),
  { nil: null },
);

const simple = (type: Exclude<PhaseEventType, "dispatch_refused" | "failed" | "reconciled" | "approved">) =>
  ({ type }) as PhaseEvent;

/** A phase and an event for it, each event built by the gate's own decision functions where one decides it. */
const arbAsked: fc.Arbitrary<[Phase, PhaseEvent]> = fc.oneof(
  fc.tuple(
    arbPhase,
    fc
      .constantFrom(
        ...([
          "approval_requested",
          "dispatched",
          "confirmed",
          "outcome_unknown",
          "lost_in_flight",
          "rejected",
          "expired",
        ] as const),
      )
      .map(simple),
  ),
  // A refused dispatch is asked about the phase the decision was made on.
  fc
    .tuple(arbGateInput, arbRun)
    .map(([input, run]): [Phase, PhaseEvent] => [
      input.operation.phase,
      { type: "dispatch_refused", decision: decide({ ...input, run }) },
    ]),
  fc
    .tuple(arbPhase, arbGateInput, arbRun, arbClassifiedError, fc.integer())
    .map(([phase, input, run, error, seed]): [Phase, PhaseEvent] => {
      const dispatched = { ...input, run, operation: { ...input.operation, phase: "DISPATCHED" as const } };
      return [phase, { type: "failed", step: decideAfterFailure(dispatched, error, seededRandom(seed)) }];
    }),
  fc
    .tuple(arbPhase, fc.integer({ min: 0, max: 5 }))
    .map(([phase, attempt]): [Phase, PhaseEvent] => [
      phase,
      { type: "approved", decision: afterApproval({ attempt }) },
    ]),
  fc
    .tuple(
      arbPhase,
      fc.constantFrom("applied" as const, "not_applied" as const),
      fc.boolean(),
      fc.integer({ min: 1, max: 3 }),
    )
    .map(([phase, outcome, approveRetry, quorum]): [Phase, PhaseEvent] => {
      const op = { attempt: 1, providerId: null, approvedAttempt: null };
      const { phase: decided } = reconciledUnderQuorum(op, { outcome, approveRetry }, quorum);
      return [phase, { type: "reconciled", decision: { phase: decided } }];
    }),
);

/** The moves an answer makes, step by step. */
function steps(from: Phase, to: Phase, through: Phase | null): string[] {
  return through === null ? [`${from}>${to}`] : [`${from}>${through}`, `${through}>${to}`];
}

describe("nextPhase", () => {
  test("answers only moves TRANSITIONS lists, a stay only for a refused dispatch, and reaches every move it lists", () => {
    const reached = new Set<string>();
    const moving = new Set<string>();
    fc.assert(
      fc.property(arbAsked, ([from, event]) => {
        let move;
        try {
          move = nextPhase(from, event);
        } catch (error) {
          expect(error).toBeInstanceOf(IllegalTransitionError);
          return;
        }
        expect(move.from).toBe(from);
        if (move.to === from) {
          expect(event.type).toBe("dispatch_refused");
          expect(move.through).toBeNull();
          return;
        }
        if (move.through !== null) expect(isLegalTransition(from, move.through)).toBe(true);
        expect(isLegalTransition(move.through ?? from, move.to)).toBe(true);
        for (const step of steps(from, move.to, move.through)) reached.add(step);
        moving.add(event.type);
      }),
      { numRuns: 20_000, seed: 32 },
    );
    const listed = PHASES.flatMap((from) => TRANSITIONS[from].map((to) => `${from}>${to}`));
    expect(listed.filter((edge) => !reached.has(edge))).toEqual([]);
    expect(EVENT_TYPES.filter((type) => !moving.has(type))).toEqual([]);
  });

  test("reaches every phase from the initial one", () => {
    const seen = new Set<Phase>([INITIAL_PHASE]);
    for (let grew = true; grew;) {
      grew = false;
      for (const from of [...seen]) {
        for (const to of TRANSITIONS[from]) {
          if (!seen.has(to)) {
            seen.add(to);
            grew = true;
          }
        }
      }
    }
    expect([...seen].sort()).toEqual([...PHASES].sort());
  });
});

const STOPPED_BY_RUN: Decision = {
  action: "STOP",
  reason: "Attempt 2 is not dispatched: the run is over.",
  runAllowance: { runId: "run_1", bound: "deadline" },
};

/** The gate's decision for an IDEMPOTENT operation in `phase` at attempt 1, under a contract that asks a person. */
const approvalFor = (phase: Phase): Decision =>
  decide(gateInput("IDEMPOTENT", { phase, attempt: 1 }, { approval: "required" }));

describe("each command's event", () => {
  const cases: { command: string; from: Phase; event: PhaseEvent; to: Phase; through?: Phase }[] = [
    {
      command: "plan held for a person",
      from: "PLANNED",
      event: { type: "approval_requested" },
      to: "AWAITING_APPROVAL",
    },
    { command: "dispatch", from: "PLANNED", event: { type: "dispatched" }, to: "DISPATCHED", through: "AUTHORIZED" },
    {
      command: "dispatch of a retry",
      from: "RETRY_SCHEDULED",
      event: { type: "dispatched" },
      to: "DISPATCHED",
      through: "AUTHORIZED",
    },
    {
      command: "dispatch refused for a person",
      from: "RETRY_SCHEDULED",
      event: { type: "dispatch_refused", decision: approvalFor("RETRY_SCHEDULED") },
      to: "AWAITING_APPROVAL",
    },
    {
      command: "dispatch refused by the key retention",
      from: "RETRY_SCHEDULED",
      event: {
        type: "dispatch_refused",
        decision: decide({
          ...gateInput("IDEMPOTENT", { phase: "RETRY_SCHEDULED", attempt: 1, firstDispatchedAt: NOW - 10_000 }),
          contract: contractFor("IDEMPOTENT", { keyRetentionMs: 1_000 }),
        }),
      },
      to: "UNKNOWN",
    },
    {
      command: "dispatch refused by the run",
      from: "RECONCILED",
      event: { type: "dispatch_refused", decision: STOPPED_BY_RUN },
      to: "FAILED",
    },
    { command: "outcome confirmed", from: "DISPATCHED", event: { type: "confirmed" }, to: "CONFIRMED" },
    { command: "outcome unknown", from: "DISPATCHED", event: { type: "outcome_unknown" }, to: "UNKNOWN" },
    {
      command: "outcome failed",
      from: "DISPATCHED",
      event: {
        type: "failed",
        step: decideAfterFailure(
          gateInput("IDEMPOTENT", operation({ phase: "DISPATCHED", attempt: 1 })),
          { kind: "timeout", errorClass: "transient" },
          () => 0.5,
        ),
      },
      to: "RETRY_SCHEDULED",
    },
    { command: "sweep", from: "DISPATCHED", event: { type: "lost_in_flight" }, to: "UNKNOWN" },
    {
      command: "reconcile",
      from: "UNKNOWN",
      event: { type: "reconciled", decision: { phase: "RECONCILED" } },
      to: "RECONCILED",
    },
    {
      command: "reconcile with the first of a quorum's approvals",
      from: "UNKNOWN",
      event: { type: "reconciled", decision: { phase: "AWAITING_APPROVAL" } },
      to: "AWAITING_APPROVAL",
      through: "RECONCILED",
    },
    {
      command: "approve a first attempt",
      from: "AWAITING_APPROVAL",
      event: { type: "approved", decision: afterApproval({ attempt: 0 }) },
      to: "PLANNED",
    },
    {
      command: "approve a retry",
      from: "AWAITING_APPROVAL",
      event: { type: "approved", decision: afterApproval({ attempt: 2 }) },
      to: "RETRY_SCHEDULED",
    },
    { command: "reject", from: "RECONCILED", event: { type: "rejected" }, to: "REJECTED" },
    { command: "expire", from: "AWAITING_APPROVAL", event: { type: "expired" }, to: "EXPIRED" },
  ];

  test.each(cases)("$command: $from -> $to", ({ from, event, to, through }) => {
    expect(nextPhase(from, event)).toEqual({ from, to, through: through ?? null });
  });

  test.each([
    { decision: approvalFor("AWAITING_APPROVAL"), from: "AWAITING_APPROVAL" as const },
    { decision: decide(gateInput("IDEMPOTENT", { phase: "UNKNOWN", attempt: 1 })), from: "UNKNOWN" as const },
    { decision: decide(gateInput("IDEMPOTENT", { phase: "DISPATCHED", attempt: 1 })), from: "DISPATCHED" as const },
    { decision: decide(gateInput("IDEMPOTENT", { phase: "CONFIRMED", attempt: 1 })), from: "CONFIRMED" as const },
  ])("a refused dispatch that waits where it is stays $from ($decision.action)", ({ decision, from }) => {
    expect(nextPhase(from, { type: "dispatch_refused", decision })).toEqual({ from, to: from, through: null });
  });
});

describe("refusals", () => {
  test("a move the table does not list is refused with the table's sentence", () => {
    expect(() => nextPhase("CONFIRMED", { type: "rejected" })).toThrow(
      new IllegalTransitionError("CONFIRMED", "REJECTED"),
    );
    expect(() => nextPhase("CONFIRMED", { type: "rejected" })).toThrow(/CONFIRMED is terminal/);
    expect(() => nextPhase("EXPIRED", { type: "dispatched" })).toThrow(
      "An operation in phase EXPIRED cannot move to AUTHORIZED; EXPIRED is terminal.",
    );
  });

  test.each([
    { from: "RETRY_SCHEDULED" as const, event: { type: "lost_in_flight" } as PhaseEvent, only: "DISPATCHED" },
    {
      from: "RETRY_SCHEDULED" as const,
      event: { type: "failed", step: { phase: "FAILED" } } as PhaseEvent,
      only: "DISPATCHED",
    },
    {
      from: "DISPATCHED" as const,
      event: { type: "approved", decision: afterApproval({ attempt: 1 }) } as PhaseEvent,
      only: "AWAITING_APPROVAL",
    },
    { from: "RECONCILED" as const, event: { type: "approval_requested" } as PhaseEvent, only: "PLANNED" },
  ])(
    "$event.type on $from is refused although TRANSITIONS has the move: it applies only in $only",
    ({ from, event, only }) => {
      expect(() => nextPhase(from, event)).toThrow(IllegalTransitionError);
      expect(() => nextPhase(from, event)).toThrow(`${event.type} applies only to an operation in ${only}.`);
    },
  );
});
