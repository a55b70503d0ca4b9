// Model-based test with interleavings: two workers (of the keys that planned the operations, with a stranger key
// trying them too) and an operator (sweep, approval expiry, approvals by persons and by principals the human gate must
// refuse, reconciliation, contract edits) run their commands concurrently against one real database; fast-check's
// scheduler decides which of them starts its next command, so two or three transactions are in flight together
// (serialised by SQLite's one connection, truly overlapping on PostgreSQL). The scheduler orders the starts and the
// provider's answers; what happens inside the database is not paused, so a replayed seed reproduces the command lists
// and start order, not every row lock. Afterwards, alone again, a fair schedule must leave every operation finished or
// with a person (liveness), and every effect must have gone out under an attempt the ledger let go (and a person
// granted, where one had to).
import fc from "fast-check";
import { expect, it } from "vitest";
import { approveOperation, rejectOperation } from "@/lib/ledger/commands/approval";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { expireApprovals } from "@/lib/ledger/commands/expire-approvals";
import { claimLease, heartbeatLease } from "@/lib/ledger/commands/lease";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { planOperation } from "@/lib/ledger/commands/plan";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import { PHASES } from "@/lib/retry-gate/types";
import { alice } from "./helpers/ledger-fixtures";
import {
  DECIDER_DRAWS,
  DECIDERS,
  outsideOwnOperations,
  PLANNER_NAMES,
  PLANNERS,
  possibleApproveAnswers,
  possibleReconcileAnswers,
  type DeciderName,
  type PlannerName,
} from "./helpers/ledger-model-authority";
import { Coverage, COVERED_RUNS } from "./helpers/ledger-model-coverage";
import { driveFairly, fairAnswers, workUnknownsQueue } from "./helpers/ledger-model-worker";
import {
  answerOf,
  at,
  BEHAVIOURS,
  checkInvariants,
  contractEdit,
  dispatchAs,
  editContract,
  fenceKey,
  freshLedger,
  modelRuns,
  modelSeed,
  modelTimeoutMs,
  newWorld,
  pick,
  pickIn,
  recordApproval,
  recordGrant,
  runSetup,
  sendToProvider,
  settle,
  TOOL_NAMES,
  type Behaviour,
  type ContractEdit,
  type World,
} from "./helpers/ledger-model-world";

interface Step {
  /** The command, for the coverage counters. */
  command: string;
  run(w: World, s: fc.Scheduler, actor: string): Promise<void>;
  toString(): string;
}

const op = (w: World, index: number) => pick(w.ops, index);

function plan(tool: string, key: number, by: PlannerName): Step {
  return {
    command: "plan",
    async run(w) {
      const planner = PLANNERS[by];
      const input = { tool, args: { v: 0 }, idempotencyKey: `k${key}` };
      const planned = await answerOf(planOperation(w.ledger, input, planner, at(w)), ({ operation }) => {
        if (!w.ops.some((o) => o.id === operation.id)) {
          w.ops.push({
            id: operation.id,
            tool,
            key: `k${key}`,
            args: 0,
            contractVersion: operation.contractVersion,
            planner,
          });
        }
        return "planned";
      });
      // Another key's (tool, key) is taken: it is refused without being shown. Judged by who holds it once the call
      // has answered, since the other key's plan may be in flight at the same time (and win).
      const holder = await w.ledger.db.operation.findUniqueOrThrow({
        where: { tool_idempotencyKey: { tool, idempotencyKey: input.idempotencyKey } },
        select: { plannedByKeyId: true },
      });
      expect(planned, `plan(${tool}, k${key}) by ${by}, held by ${holder.plannedByKeyId}`).toBe(
        holder.plannedByKeyId === planner.id ? "planned" : "idempotency_key_reused",
      );
    },
    toString: () => `plan(${tool}, k${key}, by ${by})`,
  };
}

function claim(index: number, leaseMs: number): Step {
  return {
    command: "claim",
    async run(w, _s, worker) {
      const target = op(w, index);
      if (!target) return;
      await settle(
        w,
        target.id,
        claimLease(w.ledger, target.id, { workerId: worker, leaseMs }, target.planner, at(w)).then((lease) =>
          recordGrant(w, target.id, worker, lease.fence),
        ),
        ["lease_held", "already_finished", "approval_expired"],
      );
    },
    toString: () => `claim(op${index}, ${leaseMs})`,
  };
}

function heartbeat(index: number): Step {
  return {
    command: "heartbeat",
    async run(w, _s, worker) {
      const target = op(w, index);
      const fence = target && w.fences.get(fenceKey(worker, target.id));
      if (!target || fence === undefined) return;
      await settle(w, target.id, heartbeatLease(w.ledger, target.id, { fence, leaseMs: 5000 }, target.planner, at(w)), [
        "stale_fence",
        "already_finished",
      ]);
    },
    toString: () => `heartbeat(op${index})`,
  };
}

/**
 * Dispatch, the provider, then (at a point the scheduler chooses, so a sweep or a take-over may come first) the report.
 */
function attempt(index: number, behaviour: Behaviour): Step {
  return {
    command: "attempt",
    async run(w, s, worker) {
      const target = op(w, index);
      const fence = target && w.fences.get(fenceKey(worker, target.id));
      if (!target || fence === undefined) return;
      let dispatched: Awaited<ReturnType<typeof dispatchAs>> | undefined;
      const sent = await settle(
        w,
        target.id,
        dispatchAs(w, target, fence).then((d) => void (dispatched = d)),
        [
          "stale_fence",
          "lease_expired",
          "approval_required",
          "approval_expired",
          "budget_spent",
          "reconcile_required",
          "in_flight",
          "already_finished",
          "retry_not_due",
        ],
      );
      if (!sent || !dispatched) return;
      expect(dispatched.idempotencyKey).toBe(target.key);
      w.dispatches.push({ id: target.id, attempt: dispatched.attempt, fence, worker });
      const report = sendToProvider(
        w,
        target,
        { key: dispatched.idempotencyKey, attempt: dispatched.attempt },
        behaviour,
      );
      await s.schedule(Promise.resolve(), `${worker} hears from the provider on op${index}`);
      if (!report) return;
      const attemptNumber = dispatched.attempt;
      await settle(
        w,
        target.id,
        reportOutcome(w.ledger, target.id, { ...report, fence }, target.planner, at(w), () => 0).then(() =>
          w.outcomes.push({ id: target.id, attempt: attemptNumber, result: report.result, fence }),
        ),
        ["stale_fence", "not_dispatched"],
      );
    },
    toString: () => `attempt(op${index}, ${behaviour})`,
  };
}

/** Another key tries a worker's commands on the operation, with its current fence: always told it does not exist. */
function intrude(index: number, key: number, command: "claim" | "heartbeat" | "dispatch" | "outcome"): Step {
  return {
    command: "intrude",
    async run(w) {
      const target = op(w, index);
      const stranger =
        target &&
        pick(
          PLANNER_NAMES.map((name) => PLANNERS[name]).filter((k) => k.id !== target.planner.id),
          key,
        );
      if (!target || !stranger || !outsideOwnOperations(stranger, target.planner, "agent")) return;
      const { fence } = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: target.id } });
      const now = at(w);
      const tried: Promise<unknown> =
        command === "claim"
          ? claimLease(w.ledger, target.id, { workerId: "stranger", leaseMs: 5000 }, stranger, now)
          : command === "heartbeat"
            ? heartbeatLease(w.ledger, target.id, { fence, leaseMs: 5000 }, stranger, now)
            : command === "dispatch"
              ? dispatchOperation(w.ledger, target.id, { fence }, stranger, now)
              : reportOutcome(w.ledger, target.id, { fence, result: "confirmed", providerId: "p" }, stranger, now);
      expect(await answerOf(tried, () => "done"), `${stranger.id}: ${command} on ${target.id}`).toBe("not_found");
    },
    toString: () => `intrude(op${index}, key ${key}, ${command})`,
  };
}

const sweep: Step = {
  command: "sweep",
  run: async (w) => void (await recoverExpiredLeases(w.ledger, at(w))),
  toString: () => "sweep()",
};

const expire: Step = {
  command: "expireApprovals",
  run: async (w) => void (await expireApprovals(w.ledger, at(w))),
  toString: () => "expireApprovals()",
};

function advance(ms: number): Step {
  return { command: "advance", run: (w) => Promise.resolve(void (w.now += ms)), toString: () => `advance(${ms})` };
}

/** Anyone may ask to approve; who asks fixes the answer's kind even while the operation moves under the call. */
function approve(index: number, by: DeciderName, fromQueue: boolean): Step {
  return {
    command: "approve",
    async run(w) {
      const target = await pickIn(w, index, fromQueue ? "AWAITING_APPROVAL" : null);
      if (!target) return;
      const actor = DECIDERS[by];
      const answer = await answerOf(
        approveOperation(w.ledger, target.id, { reason: "model" }, actor, at(w), { fourEyes: w.fourEyes }),
        (view) => {
          if (view.phase === "AWAITING_APPROVAL") return "approval_given";
          // The row may have moved since anyone read it: the attempt granted is the one the ledger names.
          recordApproval(w, target.id, view.approvedAttempt ?? 0);
          return "approved";
        },
      );
      expect(possibleApproveAnswers(actor, target.planner, w.fourEyes), `${by} approves ${target.id}`).toContain(
        answer,
      );
    },
    toString: () => `approve(${fromQueue ? "waiting " : ""}op${index}, by ${by})`,
  };
}

function reject(index: number, byPlanner: boolean): Step {
  return {
    command: "reject",
    async run(w) {
      const target = op(w, index);
      if (!target) return;
      const row = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: target.id } });
      if (row.phase !== "AWAITING_APPROVAL") return;
      const by = byPlanner ? target.planner : alice;
      await settle(w, target.id, rejectOperation(w.ledger, target.id, { reason: "model" }, by, at(w)), [
        "not_rejectable",
      ]);
    },
    toString: () => `reject(op${index}, by ${byPlanner ? "planner" : "alice"})`,
  };
}

function reconcile(index: number, approveRetry: boolean, by: DeciderName | "planner", fromQueue: boolean): Step {
  return {
    command: "reconcile",
    async run(w) {
      const target = await pickIn(w, index, fromQueue ? "UNKNOWN" : null);
      if (!target) return;
      const applied = (w.effects.get(target.id)?.length ?? 0) > 0;
      const grant = !applied && approveRetry;
      const input = {
        outcome: applied ? ("applied" as const) : ("not_applied" as const),
        // A person who says the effect happened names the provider's id for it (the ledger's reconcile rule).
        ...(applied ? { providerId: `effect-of-${target.id}` } : {}),
        evidence: { lookup: "model" },
        approveRetry: grant,
      };
      const actor = by === "planner" ? target.planner : DECIDERS[by];
      const answer = await answerOf(
        reconcileOperation(w.ledger, target.id, input, actor, at(w), { fourEyes: w.fourEyes }),
        (view) => {
          if (!grant) return "reconciled";
          if (view.phase === "AWAITING_APPROVAL") return "approval_given";
          recordApproval(w, target.id, view.approvedAttempt ?? 0);
          return "approved";
        },
      );
      expect(
        possibleReconcileAnswers(actor, target.planner, w.fourEyes, grant),
        `${by} reconciles ${target.id} (approve=${grant})`,
      ).toContain(answer);
    },
    toString: () => `reconcile(${fromQueue ? "unknown " : ""}op${index}, approve=${approveRetry}, by ${by})`,
  };
}

function changeContract(tool: string, edit: ContractEdit): Step {
  return {
    command: "editContract",
    run: async (w) => void (await editContract(w, tool, edit)),
    toString: () => `editContract(${tool}, ${JSON.stringify(edit)})`,
  };
}

const index = fc.nat({ max: 1 });
// Mostly the first agent key, as before; the other agent key and Alice's own key plan too (own operations, four-eyes).
const planner = fc.constantFrom<PlannerName>("agent", "agent", "otherAgent", "alicesKey");
const decider = fc.constantFrom(...DECIDER_DRAWS);
// A viewer only asks to approve: whether a viewer may reconcile with evidence is the console's and the API's rule.
const reconciler = fc.constantFrom<DeciderName | "planner">(
  ...DECIDER_DRAWS.filter((d) => d !== "viewer"),
  "planner",
  "planner",
);
// Persons mostly decide from their queue (what waits for them), now and then on any operation.
const fromQueue = fc.constantFrom(true, true, false);
const workerStep = fc.oneof(
  // Mostly short leases, so take-overs of a lease still in use are common.
  { weight: 3, arbitrary: fc.tuple(index, fc.constantFrom(200, 200, 5000)).map(([o, l]) => claim(o, l)) },
  { weight: 4, arbitrary: fc.tuple(index, fc.constantFrom(...BEHAVIOURS)).map(([o, b]) => attempt(o, b)) },
  { weight: 1, arbitrary: index.map(heartbeat) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...TOOL_NAMES), fc.nat({ max: 1 }), planner).map(([t, k, p]) => plan(t, k, p)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(index, fc.nat({ max: 1 }), fc.constantFrom("claim", "heartbeat", "dispatch", "outcome"))
      .map(([o, k, c]) => intrude(o, k, c)),
  },
);
const operatorStep = fc.oneof(
  { weight: 3, arbitrary: fc.constant(sweep) },
  { weight: 4, arbitrary: fc.constantFrom(300, 300, 6000).map(advance) },
  { weight: 2, arbitrary: fc.constant(expire) },
  { weight: 3, arbitrary: fc.tuple(index, decider, fromQueue).map(([o, d, q]) => approve(o, d, q)) },
  { weight: 1, arbitrary: fc.tuple(index, fc.boolean()).map(([o, p]) => reject(o, p)) },
  {
    weight: 2,
    arbitrary: fc.tuple(index, fc.boolean(), reconciler, fromQueue).map(([o, a, d, q]) => reconcile(o, a, d, q)),
  },
  // A person working the unknowns queue, so reconciliations (and RECONCILED) come in most runs.
  {
    weight: 2,
    arbitrary: fc
      .tuple(index, fc.boolean(), fc.constantFrom<DeciderName>("alice", "bob", "carol"))
      .map(([o, a, d]) => reconcile(o, a, d, true)),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...TOOL_NAMES), contractEdit).map(([t, e]) => changeContract(t, e)),
  },
);
const steps = (arb: fc.Arbitrary<Step>) => fc.array(arb, { minLength: 6, maxLength: 12 });

/** Runs each actor's steps in order; before each step the actor waits for the scheduler to let it start. */
async function runActor(w: World, s: fc.Scheduler, actor: string, list: Step[]): Promise<void> {
  for (const step of list) {
    await s.schedule(Promise.resolve(), `${actor}: ${String(step)}`);
    w.coverage.count("command", step.command);
    await step.run(w, s, actor);
  }
}

const COMMANDS = [
  "plan",
  "claim",
  "heartbeat",
  "attempt",
  "intrude",
  "sweep",
  "advance",
  "expireApprovals",
  "approve",
  "reject",
  "reconcile",
  "editContract",
];

const runs = modelRuns();

it(
  "keeps every invariant when two workers and an operator interleave on one database",
  async () => {
    const seed = modelSeed("ledger scheduled model");
    const coverage = new Coverage();
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.tuple(fc.constantFrom(...TOOL_NAMES), planner, fc.constantFrom(...TOOL_NAMES), planner),
        runSetup,
        steps(workerStep),
        steps(workerStep),
        steps(operatorStep),
        fairAnswers,
        async (s, [first, firstBy, second, secondBy], setup, w0, w1, operator, answers) => {
          const t = await freshLedger(setup);
          const world = newWorld(t.ledger, setup, coverage);
          try {
            // Two operations from the start, so the actors collide on them from their first step.
            await plan(first, 0, firstBy).run(world, s, "setup");
            await plan(second, 1, secondBy).run(world, s, "setup");
            const actors = [
              runActor(world, s, "w0", w0),
              runActor(world, s, "w1", w1),
              runActor(world, s, "operator", operator),
            ];
            const settled = await s.waitFor(Promise.allSettled(actors));
            const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
            if (failed) throw failed.reason;
            await driveFairly(world, answers);
            await workUnknownsQueue(world);
            await checkInvariants(world);
          } finally {
            await t.close();
          }
        },
      ),
      { seed, numRuns: runs },
    );
    coverage.log("ledger scheduled model");
    if (runs < COVERED_RUNS) return;
    coverage.expectReached("command", COMMANDS);
    coverage.expectReached("phase", PHASES);
  },
  modelTimeoutMs(runs),
);
