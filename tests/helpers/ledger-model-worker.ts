// The planning key's workers in the model-based ledger tests, when nothing else runs at the same time: every claim and
// dispatch gets exactly the answer the pure gate gives for the row read just before it. And the fair schedule that
// follows a random prefix, after which every operation must be finished or in a person's queue (liveness).
import fc from "fast-check";
import { expect } from "vitest";
import { expireApprovals } from "@/lib/ledger/commands/expire-approvals";
import { claimLease } from "@/lib/ledger/commands/lease";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import { LedgerError } from "@/lib/ledger/errors";
import { approvalTtl } from "@/lib/retry-gate/approval-expiry";
import { decide } from "@/lib/retry-gate/decide";
import { alice } from "./ledger-fixtures";
import {
  expectedClaims,
  expectedDispatch,
  modelGateInput,
  settled,
  type ClaimAnswer,
  type DispatchAnswer,
} from "./ledger-model-gate";
import {
  answerOf,
  at,
  BEHAVIOURS,
  dispatchAs,
  fenceKey,
  gateContractOf,
  recordGrant,
  sendToProvider,
  type Behaviour,
  type ModelOperation,
  type World,
} from "./ledger-model-world";

export const WORKERS = ["w0", "w1"];

async function rowOf(w: World, op: ModelOperation) {
  return w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
}

/** A worker claims the lease: the fence only grows, and the answer is the one the row allows. */
export async function claimChecked(
  w: World,
  op: ModelOperation,
  worker: string,
  leaseMs: number,
): Promise<ClaimAnswer> {
  const before = await rowOf(w, op);
  const answer = await answerOf(
    claimLease(w.ledger, op.id, { workerId: worker, leaseMs }, op.planner, at(w)),
    (lease): ClaimAnswer => {
      expect(lease.fence).toBeGreaterThan(w.issued.get(op.id) ?? 0);
      w.issued.set(op.id, lease.fence);
      recordGrant(w, op.id, worker, lease.fence);
      return "claimed";
    },
  );
  expect(expectedClaims(before, worker, w.now), `${worker} claims ${op.id} (${before.phase})`).toContain(answer);
  const lostInFlight = before.phase === "DISPATCHED" && (before.leaseExpiresAt?.getTime() ?? 0) <= w.now;
  if (answer === "claimed" && lostInFlight) {
    // The claim came before the sweep: the attempt whose lease ran out is UNKNOWN all the same, never leased again.
    expect((await rowOf(w, op)).phase, `${worker} claims ${op.id} after its lease ran out in flight`).toBe("UNKNOWN");
    w.coverage.count("claim", "lost_in_flight");
  }
  w.coverage.count("claim", answer);
  return answer as ClaimAnswer;
}

/**
 * A worker dispatches with the fence it holds, the provider answers (or the worker crashes) and the worker reports.
 * The ledger's answer is exactly the gate's for the row read before: a refusal carries the gate's code and leaves the
 * operation where the gate sends it (a person's queue, or unchanged); a dispatch goes out as the next attempt with the
 * operation's one key. Returns null when the worker holds no fence on the operation.
 */
export async function attemptChecked(
  w: World,
  op: ModelOperation,
  worker: string,
  behaviour: Behaviour,
): Promise<DispatchAnswer | null> {
  const fence = w.fences.get(fenceKey(worker, op.id));
  if (fence === undefined) return null;
  const before = await rowOf(w, op);
  const contract = gateContractOf(w, op);
  const expected = expectedDispatch(before, fence, modelGateInput(contract, before, w.now));
  const asked =
    `${worker} dispatches ${op.tool} ${op.id} with fence ${fence} (${before.phase}, attempt ${before.attempt}, ` +
    `fence ${before.fence})`;
  let dispatched;
  try {
    dispatched = await dispatchAs(w, op, fence);
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    if (error.code === "stale_fence") w.staleRefusals.set(op.id, (w.staleRefusals.get(op.id) ?? 0) + 1);
    w.coverage.count("dispatch", error.code);
    expect(error.code, `${asked}: refused "${error.message}", the gate says "${expected.decision?.reason}"`).toBe(
      expected.answer,
    );
    const after = await rowOf(w, op);
    expect(after.phase, `${asked}: where ${error.code} leaves it`).toBe(expected.routedTo ?? before.phase);
    if (expected.routedTo === null)
      expect(after.version, `${asked}: ${error.code} changed nothing`).toBe(before.version);
    if (expected.routedTo === "AWAITING_APPROVAL") {
      expect(after.approvalExpiresAt?.getTime(), `${asked}: the request's deadline`).toBe(
        w.now + approvalTtl(contract),
      );
    }
    return error.code;
  }
  w.coverage.count("dispatch", "dispatched");
  expect("dispatched", `${asked}: dispatched, the gate says "${expected.decision?.reason}"`).toBe(expected.answer);
  expect([dispatched.phase, dispatched.attempt, dispatched.idempotencyKey]).toEqual([
    "DISPATCHED",
    before.attempt + 1,
    op.key,
  ]);
  w.dispatches.push({ id: op.id, attempt: dispatched.attempt, fence, worker });
  const report = sendToProvider(w, op, { key: dispatched.idempotencyKey, attempt: dispatched.attempt }, behaviour);
  if (!report) return "dispatched";
  await reportOutcome(w.ledger, op.id, { ...report, fence }, op.planner, at(w), () => 0);
  w.outcomes.push({ id: op.id, attempt: dispatched.attempt, result: report.result, fence });
  return "dispatched";
}

/** Longer than any lease the model's workers take, so each round of the fair schedule starts with every lease over. */
const PAST_EVERY_LEASE_MS = 5_001;
/**
 * Each round either sends an unsettled operation's next attempt or puts it in a person's queue, so the rounds are
 * bounded by the largest budget the model sets (3) plus an attempt a person granted beyond it, with room to spare.
 * Crashes may come in every round: the budget, not a kind provider, is what ends the schedule.
 */
const FAIR_ROUNDS = 8;

/** The provider's answers during the fair schedule, taken in turn. */
export const fairAnswers = fc.array(fc.constantFrom(...BEHAVIOURS), { minLength: 1, maxLength: 8 });

/**
 * Every lease runs out and both sweeps run; then the operations neither finished nor in a person's queue, as the pure
 * gate judges their rows.
 */
async function sweepAndLook(w: World): Promise<{ op: ModelOperation; why: string }[]> {
  w.now += PAST_EVERY_LEASE_MS;
  await recoverExpiredLeases(w.ledger, at(w));
  await expireApprovals(w.ledger, at(w));
  const rows = await w.ledger.db.operation.findMany({ where: { id: { in: w.ops.map((op) => op.id) } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const open: { op: ModelOperation; why: string }[] = [];
  // In the order the model planned them, so a replayed seed gives the workers the same turns.
  for (const op of w.ops) {
    const row = byId.get(op.id);
    if (!row) throw new Error(`operation ${op.id} is gone from the ledger`);
    const input = modelGateInput(gateContractOf(w, op), row, w.now);
    const decision = decide(input);
    if (!settled(input, decision)) open.push({ op, why: `${op.tool} ${op.id} in ${row.phase}: ${decision.reason}` });
  }
  return open;
}

/**
 * Liveness: after whatever came before, a fair schedule (each round every lease runs out, both sweeps run, and the
 * workers take turns to claim, dispatch and report on every unsettled operation) leaves every planned operation
 * finished or waiting for a person. A ledger that refused dispatches the gate allows leaves operations PLANNED or
 * RETRY_SCHEDULED, and fails here.
 */
export async function driveFairly(w: World, answers: Behaviour[]): Promise<void> {
  let turn = 0;
  let open = await sweepAndLook(w);
  for (let round = 0; round < FAIR_ROUNDS && open.length > 0; round++) {
    for (const [i, { op }] of open.entries()) {
      // Workers take turns, so each of them gets to claim, dispatch and report.
      const worker = WORKERS[(round + i) % WORKERS.length] ?? "w0";
      if ((await claimChecked(w, op, worker, PAST_EVERY_LEASE_MS - 1)) !== "claimed") continue;
      await attemptChecked(w, op, worker, answers[turn++ % answers.length] ?? "confirm");
    }
    open = await sweepAndLook(w);
  }
  expect(
    open.map((o) => o.why),
    `operations neither finished nor with a person after ${FAIR_ROUNDS} fair rounds`,
  ).toEqual([]);
}

/**
 * The unknowns queue is no dead end: a person reconciles every UNKNOWN operation with what the provider's records
 * show, and with that evidence the gate no longer asks for a reconciliation (it stops, retries, or asks an approval).
 */
export async function workUnknownsQueue(w: World): Promise<void> {
  for (const op of w.ops) {
    if ((await rowOf(w, op)).phase !== "UNKNOWN") continue;
    const outcome = (w.effects.get(op.id)?.length ?? 0) > 0 ? "applied" : "not_applied";
    // A person who says the effect happened names the provider's id for it (the ledger's reconcile rule).
    const named = outcome === "applied" ? { providerId: `effect-of-${op.id}` } : {};
    const input = { outcome, evidence: { lookup: "model" }, ...named } as const;
    const view = await reconcileOperation(w.ledger, op.id, input, alice, at(w), { fourEyes: w.fourEyes });
    expect([view.phase, view.evidence], `${op.tool} ${op.id} reconciled by a person`).toEqual(["RECONCILED", outcome]);
    const decision = decide(modelGateInput(gateContractOf(w, op), await rowOf(w, op), w.now));
    expect(decision.action, `${op.tool} ${op.id} after its reconciliation: ${decision.reason}`).not.toBe("RECONCILE");
  }
}
