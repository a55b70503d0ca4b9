// Model-based test of the phase machine driven by the gate, every move asked of nextPhase as the ledger's commands ask
// it: random plans, dispatches, outcomes, crashes,
// reconciliations, approvals and approval expiry never apply a non-PURE effect twice, never send an attempt that needs
// a person without that person's approval of exactly that attempt, and a request nobody decides on in time ends
// EXPIRED instead of being approved by default or waiting forever. Every command and every phase a class can reach is
// reached, so a generator that stops reaching one fails the test instead of passing it vacuously.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { approvalExpired, approvalExpiresAt, approvalTtl } from "./approval-expiry";
import { CLOSED_BREAKER, breakerAllowsDispatch, nextBreaker, type BreakerEvent } from "./breaker";
import { classifyError } from "./classify-error";
import { decide, decideAfterFailure } from "./decide";
import { NOW, operation, seededRandom } from "./gate-arbitraries.test-helper";
import { nextPhase, type PhaseEvent } from "./phase-events";
import { afterApproval, reconciledUnderQuorum } from "./person-decisions";
import {
  EFFECT_CLASSES,
  PHASES,
  type Breaker,
  type BreakerConfig,
  type EffectClass,
  type GateContract,
  type GateInput,
  type GateOperation,
  type Phase,
  type ReportedError,
} from "./types";

/** The ledger's row and the world outside it, in one object: the test is the only writer. */
interface Sim {
  now: number;
  contract: GateContract;
  config: BreakerConfig;
  op: GateOperation;
  breaker: Breaker;
  random: () => number;
  /** Truth at the provider: how many times the effect was applied under this operation's key. */
  effects: number;
  /** IDEMPOTENT providers remember a key from the first request that took effect, for keyRetentionMs. */
  keyStoredAt: number | null;
  dispatchesWithoutApproval: number;
  /** The operation as the sweep left it when it expired: nothing may change it afterwards. */
  expiredAs: GateOperation | null;
  /** The commands run and phases reached, across all runs of one effect class. */
  reached: Set<string>;
}

type SimCommand = fc.Command<Sim, Sim>;

const inputOf = (s: Sim): GateInput => ({
  operation: s.op,
  contract: s.contract,
  breaker: s.breaker,
  breakerConfig: s.config,
  now: s.now,
});

/**
 * The phase the gate answers for `event`, written with `changes`. Every request for a person gets its deadline, as
 * the ledger writes it; leaving AWAITING_APPROVAL keeps the old one, because the gate must not depend on the store
 * clearing it.
 */
function move(s: Sim, event: PhaseEvent, changes: Partial<GateOperation> = {}): void {
  const { from, to, through } = nextPhase(s.op.phase, event);
  if (to === from) return;
  if (through !== null) s.reached.add(`phase ${through}`);
  s.reached.add(`phase ${to}`);
  const deadline = to === "AWAITING_APPROVAL" ? { approvalExpiresAt: approvalExpiresAt(s.now, s.contract) } : {};
  s.op = { ...s.op, ...changes, ...deadline, phase: to };
}

function onBreaker(s: Sim, event: BreakerEvent): void {
  s.breaker = nextBreaker(s.breaker, event, s.config, s.now);
}

/**
 * Whether attempt `n` may leave only with a person's approval of exactly that attempt: every attempt of a contract that
 * requires approval, any attempt beyond the budget, and every retry of a class whose repeat a person must allow
 * (NON_RETRYABLE, and UNKNOWN, which is reconciled first and then approved).
 */
function personMustApprove(contract: GateContract, n: number): boolean {
  if (contract.approval === "required" || n > contract.maxAttempts) return true;
  return n > 1 && (contract.effect === "NON_RETRYABLE" || contract.effect === "UNKNOWN");
}

/** The provider receives the request; `applies` is whether the world changed if nothing stops it. */
function deliver(s: Sim, applies: boolean): void {
  if (!applies) return;
  if (s.contract.effect === "IDEMPOTENT") {
    const retention = s.contract.keyRetentionMs ?? Number.POSITIVE_INFINITY;
    if (s.keyStoredAt !== null && s.now <= s.keyStoredAt + retention) return;
    s.keyStoredAt = s.now;
  }
  s.effects += 1;
}

class Tick implements SimCommand {
  constructor(readonly ms: number) {}
  // Requests are instantaneous next to backoffs and retention windows, so time stands still while one is out.
  check = (s: Readonly<Sim>) => s.op.phase !== "DISPATCHED";
  run(s: Sim): void {
    s.reached.add("command tick");
    s.now += this.ms;
  }
  toString = () => `tick(${this.ms})`;
}

/** What a worker and the ledger do together: ask the gate, and either send the attempt or park the operation. */
class Dispatch implements SimCommand {
  check = () => true;
  run(s: Sim): void {
    s.reached.add("command dispatch");
    const decision = decide(inputOf(s));
    switch (decision.action) {
      case "DISPATCH":
      case "RETRY":
      case "RETRY_SAME_KEY": {
        if ((decision.retryAfterMs ?? 0) > 0) return;
        const verdict = breakerAllowsDispatch(s.breaker, s.config, s.now);
        expect(verdict.allowed).toBe(true);
        if (verdict.allowed && verdict.probe) onBreaker(s, { type: "probe" });
        const attempt = s.op.attempt + 1;
        if (s.op.approvedAttempt !== attempt) s.dispatchesWithoutApproval += 1;
        if (personMustApprove(s.contract, attempt)) {
          expect(s.op.approvedAttempt, `attempt ${attempt} needs a person's approval of it`).toBe(attempt);
        }
        // Evidence and the approval are left as they were: the gate must not depend on the store clearing them.
        move(
          s,
          { type: "dispatched" },
          { attempt, notBefore: null, firstDispatchedAt: s.op.firstDispatchedAt ?? s.now },
        );
        return;
      }
      // Parked where the gate's decision says a person looks, or left where it is.
      case "APPROVAL":
      case "WAIT":
      case "RECONCILE":
      case "UNAVAILABLE":
      case "STOP":
        move(s, { type: "dispatch_refused", decision });
        return;
      default: {
        const unhandled: never = decision.action;
        throw new Error(String(unhandled));
      }
    }
  }
  toString = () => "dispatch";
}

type Report = { result: "confirmed" } | { result: "unknown" } | { result: "failed"; error: ReportedError };

/** The attempt's outcome reaches the ledger; `applies` is whether the provider acted on it, where that is in doubt. */
class Outcome implements SimCommand {
  constructor(
    readonly report: Report,
    readonly applies: boolean,
  ) {}
  check = (s: Readonly<Sim>) => s.op.phase === "DISPATCHED";
  run(s: Sim): void {
    s.reached.add("command outcome");
    switch (this.report.result) {
      case "confirmed":
        deliver(s, true);
        onBreaker(s, { type: "success" });
        move(s, { type: "confirmed" });
        return;
      case "unknown":
        deliver(s, this.applies);
        onBreaker(s, { type: "failure" });
        move(s, { type: "outcome_unknown" });
        return;
      case "failed": {
        const error = classifyError(this.report.error);
        // A refusal, a refused connection and a rate limit are answers given before anything was done.
        const refused =
          error.errorClass === "fatal" || error.kind === "connection_refused" || error.kind === "rate_limited";
        deliver(s, this.applies && !refused);
        if (error.errorClass !== "fatal") onBreaker(s, { type: "failure" });
        const step = decideAfterFailure(inputOf({ ...s, op: { ...s.op, lastError: error } }), error, s.random);
        move(s, { type: "failed", step }, { lastError: error, notBefore: step.notBefore });
        return;
      }
      default: {
        const unhandled: never = this.report;
        throw new Error(String(unhandled));
      }
    }
  }
  toString = () => `outcome(${JSON.stringify(this.report)}, applies=${this.applies})`;
}

/** The worker died mid-call; its lease runs out and the operation is known only to be in doubt. */
class Crash implements SimCommand {
  constructor(readonly applies: boolean) {}
  check = (s: Readonly<Sim>) => s.op.phase === "DISPATCHED";
  run(s: Sim): void {
    s.reached.add("command crash");
    deliver(s, this.applies);
    move(s, { type: "lost_in_flight" });
  }
  toString = () => `crash(applies=${this.applies})`;
}

/** A provider lookup by key: it tells the truth. */
class Reconcile implements SimCommand {
  check = (s: Readonly<Sim>) => s.op.phase === "UNKNOWN";
  run(s: Sim): void {
    s.reached.add("command reconcile");
    const outcome = s.effects > 0 ? "applied" : "not_applied";
    const { phase } = reconciledUnderQuorum({ ...s.op, providerId: null }, { outcome }, 1);
    move(s, { type: "reconciled", decision: { phase } }, { evidence: outcome });
  }
  toString = () => "reconcile";
}

const EXPIRED_REASON =
  /^The approval request for .* expired after .+ without a decision; a person can replay the operation\.$/;

/**
 * A careful person: approves only what the evidence shows has not happened, and rejects the rest (a reject from other
 * phases adds nothing).
 */
class Approve implements SimCommand {
  check = (s: Readonly<Sim>) => s.op.phase === "AWAITING_APPROVAL";
  run(s: Sim): void {
    s.reached.add("command approve");
    // Past its deadline the request is gone even before the sweep comes by: the ledger refuses, nothing moves.
    if (approvalExpired(s.op, s.now)) {
      expect(decide(inputOf(s))).toMatchObject({ action: "STOP", reason: EXPIRED_REASON });
      return;
    }
    if (s.contract.effect !== "PURE" && s.effects > 0) {
      move(s, { type: "rejected" }, { rejectionReason: "the effect already happened" });
      return;
    }
    const decision = afterApproval(s.op);
    move(s, { type: "approved", decision }, { approvedAttempt: decision.approvedAttempt });
  }
  toString = () => "approve";
}

/** opledger's sweep, as the system: a request past its deadline becomes EXPIRED, audited with the gate's reason. */
class ExpireApprovals implements SimCommand {
  check = () => true;
  run(s: Sim): void {
    s.reached.add("command expireApprovals");
    if (s.op.phase !== "AWAITING_APPROVAL" || !approvalExpired(s.op, s.now)) return;
    const before = decide(inputOf(s));
    move(s, { type: "expired" });
    // One sentence before and after the sweep: the agent, the audit record and the console read the same answer.
    expect(decide(inputOf(s))).toEqual(before);
    expect(before).toMatchObject({ action: "STOP", reason: EXPIRED_REASON });
    s.expiredAs = s.op;
  }
  toString = () => "expireApprovals";
}

class Operator implements SimCommand {
  constructor(readonly event: BreakerEvent) {}
  check = () => true;
  run(s: Sim): void {
    s.reached.add("command breaker");
    onBreaker(s, this.event);
  }
  toString = () => `breaker(${this.event.type})`;
}

const arbReportedError: fc.Arbitrary<ReportedError> = fc.oneof(
  fc.constantFrom("timeout", "ECONNRESET", "ECONNREFUSED", "validation", "weird").map((kind) => ({ kind })),
  fc.constantFrom(408, 409, 422, 429, 500, 503).map((httpStatus) => ({ httpStatus })),
  fc.constant({ httpStatus: 429, retryAfterMs: 5_000 }),
);

const arbReport: fc.Arbitrary<Report> = fc.oneof(
  fc.constant({ result: "confirmed" as const }),
  fc.constant({ result: "unknown" as const }),
  arbReportedError.map((error) => ({ result: "failed" as const, error })),
  arbReportedError.map((error) => ({ result: "failed" as const, error })),
);

const arbOutcome = fc.tuple(arbReport, fc.boolean()).map(([report, applies]) => new Outcome(report, applies));
const arbTick = fc.integer({ min: 0, max: 40_000 }).map((ms) => new Tick(ms));

// Repeated entries weight the draw towards the moves that make progress.
const arbCommands = fc.commands(
  [
    arbTick,
    arbTick,
    fc.constant(new Dispatch()),
    fc.constant(new Dispatch()),
    fc.constant(new Dispatch()),
    arbOutcome,
    arbOutcome,
    fc.boolean().map((applies) => new Crash(applies)),
    fc.constant(new Reconcile()),
    fc.constant(new Approve()),
    fc.constant(new ExpireApprovals()),
    fc
      .constantFrom<BreakerEvent>(
        { type: "force_open", reason: "maintenance" },
        { type: "force_close", reason: "known good" },
        { type: "release" },
      )
      .map((event) => new Operator(event)),
  ],
  { maxCommands: 80, size: "large" },
);

const arbContract = (effect: EffectClass): fc.Arbitrary<GateContract> =>
  fc.record({
    effect: fc.constant(effect),
    approval: fc.constantFrom("required", "not_required", "not_required", "not_required"),
    maxAttempts: fc.integer({ min: 1, max: 4 }),
    backoff: fc.constant({ baseMs: 1_000, maxMs: 20_000 }),
    keyRetentionMs: fc.option(fc.integer({ min: 0, max: 120_000 }), { nil: null, freq: 4 }),
    // Short enough to run out within a run; null is the 24 h default, which never does here.
    approvalTtlMs: fc.option(fc.integer({ min: 1_000, max: 120_000 }), { nil: null, freq: 4 }),
  });

const COMMANDS = ["tick", "dispatch", "outcome", "crash", "reconcile", "approve", "expireApprovals", "breaker"];

/**
 * The careful person rejects only a request whose effect already happened. PURE has no effect to protect, and
 * REPLAYABLE and UNKNOWN never ask a person while an effect is possible: the gate sends them to a reconciliation,
 * which ends them once it proves the effect. So REJECTED is reached only by IDEMPOTENT and NON_RETRYABLE.
 */
function reachablePhases(effect: EffectClass): Phase[] {
  const rejects = effect === "IDEMPOTENT" || effect === "NON_RETRYABLE";
  return PHASES.filter((phase) => rejects || phase !== "REJECTED");
}

describe("the phase machine driven by the gate", () => {
  /** Runs in which a request expired, per class: the expiry rows must actually be exercised. */
  const expirations = Object.fromEntries(EFFECT_CLASSES.map((effect) => [effect, 0])) as Record<EffectClass, number>;

  test.each(EFFECT_CLASSES)(
    "%s: never applies a non-PURE effect twice, nor spends more than the budget without a person, and expires a request nobody decides on",
    (effect) => {
      const reached = new Set<string>();
      fc.assert(
        fc.property(arbContract(effect), fc.integer(), arbCommands, (contract, seed, commands) => {
          const sim: Sim = {
            now: NOW,
            contract,
            config: { failureThreshold: 2, cooldownMs: 30_000 },
            op: operation(),
            breaker: CLOSED_BREAKER,
            random: seededRandom(seed),
            effects: 0,
            keyStoredAt: null,
            dispatchesWithoutApproval: 0,
            expiredAs: null,
            reached,
          };
          fc.modelRun(() => ({ model: sim, real: sim }), commands);
          if (contract.effect !== "PURE") expect(sim.effects).toBeLessThanOrEqual(1);
          expect(sim.dispatchesWithoutApproval).toBeLessThanOrEqual(contract.maxAttempts);
          if (sim.op.phase === "CONFIRMED") expect(sim.effects).toBeGreaterThanOrEqual(1);
          if (sim.expiredAs !== null) {
            expirations[effect] += 1;
            // Terminal: no dispatch, outcome, approval or reconciliation moved it or spent an attempt afterwards.
            expect(sim.op).toEqual(sim.expiredAs);
          }
          // Never left waiting forever: once its deadline has passed, the sweep ends whatever still waits.
          if (sim.op.phase === "AWAITING_APPROVAL") {
            new Tick(approvalTtl(contract) + 1).run(sim);
            new ExpireApprovals().run(sim);
            expect(sim.op.phase).toBe("EXPIRED");
            // And a worker that asks afterwards is refused: the operation stays as the sweep left it.
            const expired = sim.op;
            new Dispatch().run(sim);
            expect(sim.op).toEqual(expired);
          }
        }),
        { numRuns: 1000 },
      );
      expect(expirations[effect]).toBeGreaterThan(0);
      const expected = [
        ...COMMANDS.map((command) => `command ${command}`),
        ...reachablePhases(effect).map((phase) => `phase ${phase}`),
      ];
      expect(
        expected.filter((name) => !reached.has(name)),
        `never reached for ${effect}`,
      ).toEqual([]);
    },
  );
});
