// Model-based test of the ledger on a real database: random
// plan/claim/heartbeat/dispatch/outcome/crash/sweep/approve/reject/
// reconcile/contract-edit sequences never apply a mutation twice without a person's approval, never let a stale fence
// write,
// keep each operation on the contract version it was planned under, and leave an audit trail of legal transitions.
import fc from "fast-check";
import { expect, it } from "vitest";
import { approveOperation, rejectOperation } from "@/lib/ledger/commands/approval";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { dispatch } from "./helpers/lifecycle";
import { LedgerError } from "@/lib/ledger/errors";
import { claimLease, heartbeatLease } from "@/lib/ledger/commands/lease";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { planOperation } from "@/lib/ledger/commands/plan";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import { isTerminal } from "@/lib/retry-gate/phases";
import type { Phase } from "@/lib/retry-gate/types";
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

const WORKERS = ["w0", "w1"];

type Model = { planned: number };
type Cmd = fc.AsyncCommand<Model, World>;

class Plan implements Cmd {
  constructor(
    readonly tool: string,
    readonly key: number,
    readonly args: number,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const key = `k${this.key}`;
    const known = w.ops.find((o) => o.tool === this.tool && o.key === key);
    const ok = await settle(
      w,
      null,
      planOperation(w.ledger, { tool: this.tool, args: { v: this.args }, idempotencyKey: key }, agent, at(w)).then(
        (r) => {
          if (known) return expect(r.operation.id).toBe(known.id);
          // A new operation runs under the contract version current when it was planned.
          expect(r.operation.contractVersion).toBe(w.contractVersions.get(this.tool));
          w.ops.push({
            id: r.operation.id,
            tool: this.tool,
            key,
            args: this.args,
            contractVersion: r.operation.contractVersion,
          });
        },
      ),
      ["idempotency_key_reused"],
    );
    // Same key: only different args may be refused, and then nothing new exists.
    if (!ok) expect(known && known.args !== this.args).toBe(true);
    m.planned = w.ops.length;
  }
  toString = () => `plan(${this.tool}, k${this.key}, v${this.args})`;
}

class Claim implements Cmd {
  constructor(
    readonly op: number,
    readonly worker: string,
    readonly leaseMs: number,
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const op = pick(w.ops, this.op);
    if (!op) return;
    await settle(
      w,
      op.id,
      claimLease(w.ledger, op.id, { workerId: this.worker, leaseMs: this.leaseMs }, agent, at(w)).then((lease) => {
        expect(lease.fence).toBeGreaterThan(w.issued.get(op.id) ?? 0);
        w.issued.set(op.id, lease.fence);
        recordGrant(w, op.id, this.worker, lease.fence);
      }),
      ["lease_held", "already_finished"],
    );
  }
  toString = () => `claim(op${this.op}, ${this.worker}, ${this.leaseMs})`;
}

/**
 * A worker extends its lease: only with its current fence on an unfinished operation, and it changes nothing but the
 * lease.
 */
class Heartbeat implements Cmd {
  constructor(
    readonly op: number,
    readonly worker: string,
    readonly leaseMs: number,
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const op = pick(w.ops, this.op);
    const fence = op && w.fences.get(fenceKey(this.worker, op.id));
    if (!op || fence === undefined) return;
    const before = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
    const ok = await settle(w, op.id, heartbeatLease(w.ledger, op.id, { fence, leaseMs: this.leaseMs }, agent, at(w)), [
      "stale_fence",
      "already_finished",
    ]);
    const after = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
    expect(ok).toBe(fence === before.fence && !isTerminal(before.phase as Phase));
    expect([after.phase, after.fence, after.attempt]).toEqual([before.phase, before.fence, before.attempt]);
    if (!ok) expect(after.version).toBe(before.version);
  }
  toString = () => `heartbeat(op${this.op}, ${this.worker}, ${this.leaseMs})`;
}

class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, w: World) {
    w.now += this.ms;
    return Promise.resolve();
  }
  toString = () => `advance(${this.ms})`;
}

class Sweep implements Cmd {
  check = () => true;
  async run(_m: Model, w: World) {
    await recoverExpiredLeases(w.ledger, at(w));
  }
  toString = () => "sweep()";
}

class Attempt implements Cmd {
  constructor(
    readonly op: number,
    readonly worker: string,
    readonly behaviour: Behaviour,
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const op = pick(w.ops, this.op);
    const fence = op && w.fences.get(fenceKey(this.worker, op.id));
    if (!op || fence === undefined) return;
    const before = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
    let dispatched;
    try {
      dispatched = await dispatch(w.ledger, op.id, fence, at(w));
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      if (fence < before.fence) expect(error.code).toBe("stale_fence");
      if (error.code === "stale_fence") w.staleRefusals.set(op.id, (w.staleRefusals.get(op.id) ?? 0) + 1);
      const after = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
      if (error.code === "stale_fence" || error.code === "lease_expired") expect(after.version).toBe(before.version);
      return;
    }
    // The ledger let it go: the worker's fence must be the current one, and the key never changes.
    expect(fence).toBe(before.fence);
    expect(dispatched.idempotencyKey).toBe(op.key);
    w.dispatches.push({ id: op.id, attempt: dispatched.attempt, fence, worker: this.worker });
    const report = sendToProvider(w, op, dispatched.idempotencyKey, this.behaviour);
    if (!report) return;
    await reportOutcome(w.ledger, op.id, { ...report, fence }, agent, at(w), () => 0);
    w.outcomes.push({ id: op.id, attempt: dispatched.attempt, result: report.result, fence });
  }
  toString = () => `attempt(op${this.op}, ${this.worker}, ${this.behaviour})`;
}

class Approve implements Cmd {
  constructor(readonly op: number) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const op = pick(w.ops, this.op);
    if (!op) return;
    if (
      await settle(w, op.id, approveOperation(w.ledger, op.id, { reason: "model" }, alice, at(w)), [
        "not_awaiting_approval",
      ])
    )
      recordApproval(w, op.id);
  }
  toString = () => `approve(op${this.op})`;
}

/** A person rejects what waits for them (rejecting fresh plans would end most runs before anything happens). */
class Reject implements Cmd {
  constructor(readonly op: number) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const op = pick(w.ops, this.op);
    if (!op) return;
    const row = await w.ledger.db.operation.findUniqueOrThrow({ where: { id: op.id } });
    if (row.phase === "AWAITING_APPROVAL") await rejectOperation(w.ledger, op.id, { reason: "model" }, alice, at(w));
  }
  toString = () => `reject(op${this.op})`;
}

/**
 * A truthful reconciler: it looks the effect up at the provider; "did not happen" may come with the retry's approval,
 * or leave it to the gate.
 */
class Reconcile implements Cmd {
  constructor(
    readonly op: number,
    readonly approveRetry: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const op = pick(w.ops, this.op);
    if (!op) return;
    const applied = (w.effects.get(op.id)?.length ?? 0) > 0;
    const approveRetry = !applied && this.approveRetry;
    const input = {
      outcome: applied ? ("applied" as const) : ("not_applied" as const),
      // A person who says the effect happened names the provider's id for it (the ledger's reconcile rule).
      ...(applied ? { providerId: `effect-of-${op.id}` } : {}),
      evidence: { lookup: "model" },
      approveRetry,
    };
    if (
      (await settle(w, op.id, reconcileOperation(w.ledger, op.id, input, alice, at(w)), ["not_unknown"])) &&
      approveRetry
    )
      recordApproval(w, op.id);
  }
  toString = () => `reconcile(op${this.op}, approve=${this.approveRetry})`;
}

/** An admin edits a contract: later plans run under the new version, operations already planned keep theirs. */
class EditContract implements Cmd {
  constructor(
    readonly tool: string,
    readonly maxAttempts: number,
    readonly approval: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const { contract, changed } = await putContract(
      w.ledger,
      this.tool,
      editedContract(this.tool, this.maxAttempts, this.approval),
      alice,
      at(w),
    );
    const before = w.contractVersions.get(this.tool) ?? 0;
    expect(contract.version).toBe(changed ? before + 1 : before);
    w.contractVersions.set(this.tool, contract.version);
  }
  toString = () => `editContract(${this.tool}, max=${this.maxAttempts}, approval=${this.approval})`;
}

// Few operations and two workers, so leases, take-overs and retries collide often.
const index = fc.nat({ max: 2 });
const worker = fc.constantFrom(...WORKERS);
const plan = fc
  .tuple(fc.constantFrom(...TOOL_NAMES), fc.nat({ max: 1 }), fc.nat({ max: 1 }))
  .map(([t, k, a]) => new Plan(t, k, a));
const claim = fc.tuple(index, worker, fc.constantFrom(200, 5000)).map(([o, wk, l]) => new Claim(o, wk, l));
const attempt = fc.tuple(index, worker, fc.constantFrom(...BEHAVIOURS)).map(([o, wk, b]) => new Attempt(o, wk, b));
// Repeating an arbitrary weights it: most steps are claims and attempts, as in a real run.
const commands = fc.commands<Model, World, false>(
  [
    plan,
    plan,
    claim,
    claim,
    claim,
    attempt,
    attempt,
    attempt,
    attempt,
    fc.tuple(index, worker, fc.constantFrom(200, 5000)).map(([o, wk, l]) => new Heartbeat(o, wk, l)),
    fc.constantFrom(50, 300, 6000).map((ms) => new Advance(ms)),
    fc.constant(new Sweep()),
    index.map((o) => new Approve(o)),
    index.map((o) => new Reject(o)),
    fc.tuple(index, fc.boolean()).map(([o, a]) => new Reconcile(o, a)),
    fc
      .tuple(fc.constantFrom(...TOOL_NAMES), fc.constantFrom(1, 3), fc.boolean())
      .map(([t, m, a]) => new EditContract(t, m, a)),
  ],
  { maxCommands: 60, size: "max" },
);

it("never applies a mutation twice without approval, never lets a stale fence write, and audits every transition", async () => {
  const seed = modelSeed("ledger model");
  await fc.assert(
    fc.asyncProperty(commands, async (cmds) => {
      const t = await freshLedger();
      const world = newWorld(t.ledger);
      try {
        await fc.asyncModelRun(() => ({ model: { planned: 0 }, real: world }), cmds);
        await checkInvariants(world);
      } finally {
        await t.close();
      }
    }),
    { seed, numRuns: modelRuns(20) },
  );
}, 180_000);
