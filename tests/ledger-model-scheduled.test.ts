// Model-based test with interleavings: two workers and an operator (sweep, approvals, reconciliation, contract edits)
// run
// their commands concurrently against one real database; fast-check's scheduler decides which of them starts its next
// command, so two or three transactions are in flight together (serialised by SQLite's one connection, truly
// overlapping on PostgreSQL). The scheduler orders the starts and the provider's answers; what happens inside the
// database is not paused, so a replayed seed reproduces the command lists and start order, not every row lock.
import fc from "fast-check";
import { expect, it } from "vitest";
import { approveOperation, rejectOperation } from "@/lib/ledger/commands/approval";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { dispatch } from "./helpers/lifecycle";
import { claimLease, heartbeatLease } from "@/lib/ledger/commands/lease";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { planOperation } from "@/lib/ledger/commands/plan";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import { agent, alice } from "./helpers/ledger-fixtures";
import {
  at,
  BEHAVIOURS,
  checkInvariants,
  editedContract,
  fenceKey,
  freshLedger,
  modelRuns,
  modelSeed,
  newWorld,
  pick,
  recordApproval,
  recordGrant,
  sendToProvider,
  settle,
  TOOL_NAMES,
  type Behaviour,
  type World,
} from "./helpers/ledger-model-world";

interface Step {
  run(w: World, s: fc.Scheduler, actor: string): Promise<void>;
  toString(): string;
}

const op = (w: World, index: number) => pick(w.ops, index);

function plan(tool: string, key: number): Step {
  return {
    async run(w) {
      const { operation } = await planOperation(
        w.ledger,
        { tool, args: { v: 0 }, idempotencyKey: `k${key}` },
        agent,
        at(w),
      );
      if (!w.ops.some((o) => o.id === operation.id)) {
        w.ops.push({ id: operation.id, tool, key: `k${key}`, args: 0, contractVersion: operation.contractVersion });
      }
    },
    toString: () => `plan(${tool}, k${key})`,
  };
}

function claim(index: number, leaseMs: number): Step {
  return {
    async run(w, _s, worker) {
      const target = op(w, index);
      if (!target) return;
      await settle(
        w,
        target.id,
        claimLease(w.ledger, target.id, { workerId: worker, leaseMs }, agent, at(w)).then((lease) =>
          recordGrant(w, target.id, worker, lease.fence),
        ),
        ["lease_held", "already_finished"],
      );
    },
    toString: () => `claim(op${index}, ${leaseMs})`,
  };
}

function heartbeat(index: number): Step {
  return {
    async run(w, _s, worker) {
      const target = op(w, index);
      const fence = target && w.fences.get(fenceKey(worker, target.id));
      if (!target || fence === undefined) return;
      await settle(w, target.id, heartbeatLease(w.ledger, target.id, { fence, leaseMs: 5000 }, agent, at(w)), [
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
    async run(w, s, worker) {
      const target = op(w, index);
      const fence = target && w.fences.get(fenceKey(worker, target.id));
      if (!target || fence === undefined) return;
      let dispatched: Awaited<ReturnType<typeof dispatch>> | undefined;
      const sent = await settle(
        w,
        target.id,
        dispatch(w.ledger, target.id, fence, at(w)).then((d) => void (dispatched = d)),
        [
          "stale_fence",
          "lease_expired",
          "approval_required",
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
      const report = sendToProvider(w, target, dispatched.idempotencyKey, behaviour);
      await s.schedule(Promise.resolve(), `${worker} hears from the provider on op${index}`);
      if (!report) return;
      const attemptNumber = dispatched.attempt;
      await settle(
        w,
        target.id,
        reportOutcome(w.ledger, target.id, { ...report, fence }, agent, at(w), () => 0).then(() =>
          w.outcomes.push({ id: target.id, attempt: attemptNumber, result: report.result, fence }),
        ),
        ["stale_fence", "not_dispatched"],
      );
    },
    toString: () => `attempt(op${index}, ${behaviour})`,
  };
}

const sweep: Step = { run: async (w) => void (await recoverExpiredLeases(w.ledger, at(w))), toString: () => "sweep()" };

function advance(ms: number): Step {
  return { run: (w) => Promise.resolve(void (w.now += ms)), toString: () => `advance(${ms})` };
}

function approve(index: number): Step {
  return {
    async run(w) {
      const target = op(w, index);
      if (!target) return;
      if (
        await settle(w, target.id, approveOperation(w.ledger, target.id, { reason: "model" }, alice, at(w)), [
          "not_awaiting_approval",
        ])
      )
        recordApproval(w, target.id);
    },
    toString: () => `approve(op${index})`,
  };
}

function reject(index: number): Step {
  return {
    async run(w) {
      const target = op(w, index);
      if (!target) return;
      const row = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: target.id } });
      if (row.phase !== "AWAITING_APPROVAL") return;
      await settle(w, target.id, rejectOperation(w.ledger, target.id, { reason: "model" }, alice, at(w)), [
        "not_rejectable",
      ]);
    },
    toString: () => `reject(op${index})`,
  };
}

function reconcile(index: number, approveRetry: boolean): Step {
  return {
    async run(w) {
      const target = op(w, index);
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
      if (
        (await settle(w, target.id, reconcileOperation(w.ledger, target.id, input, alice, at(w)), ["not_unknown"])) &&
        grant
      )
        recordApproval(w, target.id);
    },
    toString: () => `reconcile(op${index}, approve=${approveRetry})`,
  };
}

function editContract(tool: string, maxAttempts: number, approval: boolean): Step {
  return {
    run: async (w) =>
      void (await putContract(w.ledger, tool, editedContract(tool, maxAttempts, approval), alice, at(w))),
    toString: () => `editContract(${tool}, max=${maxAttempts}, approval=${approval})`,
  };
}

const index = fc.nat({ max: 1 });
const workerStep = fc.oneof(
  // Mostly short leases, so take-overs of a lease still in use are common.
  { weight: 3, arbitrary: fc.tuple(index, fc.constantFrom(200, 200, 5000)).map(([o, l]) => claim(o, l)) },
  { weight: 4, arbitrary: fc.tuple(index, fc.constantFrom(...BEHAVIOURS)).map(([o, b]) => attempt(o, b)) },
  { weight: 1, arbitrary: index.map(heartbeat) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...TOOL_NAMES), fc.nat({ max: 1 })).map(([t, k]) => plan(t, k)) },
);
const operatorStep = fc.oneof(
  { weight: 3, arbitrary: fc.constant(sweep) },
  { weight: 4, arbitrary: fc.constantFrom(300, 300, 6000).map(advance) },
  { weight: 2, arbitrary: index.map(approve) },
  { weight: 1, arbitrary: index.map(reject) },
  { weight: 2, arbitrary: fc.tuple(index, fc.boolean()).map(([o, a]) => reconcile(o, a)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...TOOL_NAMES), fc.constantFrom(1, 3), fc.boolean())
      .map(([t, m, a]) => editContract(t, m, a)),
  },
);
const steps = (arb: fc.Arbitrary<Step>) => fc.array(arb, { minLength: 6, maxLength: 12 });

/** Runs each actor's steps in order; before each step the actor waits for the scheduler to let it start. */
async function runActor(w: World, s: fc.Scheduler, actor: string, list: Step[]): Promise<void> {
  for (const step of list) {
    await s.schedule(Promise.resolve(), `${actor}: ${String(step)}`);
    await step.run(w, s, actor);
  }
}

it("keeps every invariant when two workers and an operator interleave on one database", async () => {
  const seed = modelSeed("ledger scheduled model");
  await fc.assert(
    fc.asyncProperty(
      fc.scheduler(),
      fc.tuple(fc.constantFrom(...TOOL_NAMES), fc.constantFrom(...TOOL_NAMES)),
      steps(workerStep),
      steps(workerStep),
      steps(operatorStep),
      async (s, [first, second], w0, w1, operator) => {
        const t = await freshLedger();
        const world = newWorld(t.ledger);
        try {
          // Two operations from the start, so the actors collide on them from their first step.
          await plan(first, 0).run(world, s, "setup");
          await plan(second, 1).run(world, s, "setup");
          const actors = [
            runActor(world, s, "w0", w0),
            runActor(world, s, "w1", w1),
            runActor(world, s, "operator", operator),
          ];
          const settled = await s.waitFor(Promise.allSettled(actors));
          const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
          if (failed) throw failed.reason;
          await checkInvariants(world);
        } finally {
          await t.close();
        }
      },
    ),
    { seed, numRuns: modelRuns(12) },
  );
}, 120_000);
