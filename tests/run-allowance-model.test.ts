// Model test of error rules and a run's allowance on a real database: random runs of a few operations of one run, each
// attempt failing with a provider's answer (matched by the contract's rules, or not) or confirmed or lost, the clock
// moving on between them (past the run's deadline too). Invariants: the run never gives more retries than its
// allowance (those scheduled after a failure and those of a PURE operation whose outcome was lost alike), no retry is
// scheduled to leave after its deadline or beyond its backoff, none is dispatched after the deadline, the allowance's
// count is the retries given, and every failure a rule matched is reported with that rule's name.
import fc from "fast-check";
import { afterEach, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, T0, contractFor } from "@/tests/helpers/ledger-fixtures";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { claimLease } from "@/lib/ledger/commands/lease";
import { planOperation } from "@/lib/ledger/commands/plan";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { putRunAllowance } from "@/lib/ledger/runs/run-allowances";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import type { ErrorRule, ReportedError } from "@/lib/retry-gate/types";

const RULES: ErrorRule[] = [
  { when: { httpStatus: 409, message: "in progress" }, then: "transient", why: "still in progress" },
  { when: { httpStatus: 402 }, then: "fatal", why: "declined" },
  { when: { httpStatus: [502, 504] }, then: "unknown", why: "a gateway error may follow the write" },
  { when: { httpStatus: 429 }, then: "rate_limited" },
];
const ANSWERS: (ReportedError | "confirmed" | "unknown")[] = [
  { httpStatus: 409, message: "request in progress" },
  { httpStatus: 409, message: "other conflict" },
  { httpStatus: 402 },
  { httpStatus: 503 },
  { httpStatus: 502 },
  { httpStatus: 429, retryAfterMs: 300 },
  { kind: "ECONNRESET" },
  "confirmed",
  "unknown",
];
const TOOLS = ["m.charge", "m.search"] as const;

/** The model's own reading of a rule (status or range, and a plain substring for these patterns). */
function matches(rule: ErrorRule, answer: ReportedError): boolean {
  const status = answer.httpStatus;
  const range = rule.when.httpStatus;
  if (range === undefined || status === undefined) return false;
  const [lo, hi] = typeof range === "number" ? [range, range] : range;
  return (
    status >= lo &&
    status <= hi &&
    (rule.when.message === undefined || (answer.message ?? "").includes(rule.when.message))
  );
}

const stats = { reports: 0, matched: 0, retries: 0, dispatchedRetries: 0 };

const arbAllowance = fc.record({
  maxRetries: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
  deadlineMs: fc.option(fc.integer({ min: 0, max: 6000 }), { nil: null }),
  maxBackoffMs: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }),
});
const arbStep = fc.record({
  op: fc.integer({ min: 0, max: 3 }),
  answer: fc.integer({ min: 0, max: ANSWERS.length - 1 }),
  advanceMs: fc.integer({ min: 0, max: 1500 }),
});

let t: TestDb | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

it(
  "a run never retries beyond its allowance, and every failure a rule matched names the rule",
  { timeout: 600_000 },
  async () => {
    const runs = Number(process.env.OPLEDGER_MODEL_RUNS ?? 15);
    await fc.assert(
      fc.asyncProperty(arbAllowance, fc.array(arbStep, { minLength: 1, maxLength: 25 }), async (allowance, steps) => {
        await t?.close();
        t = await createTestDb();
        const ledger = t.ledger;
        const backoff = { baseMs: 50, maxMs: 800 };
        await putContract(
          ledger,
          "m.charge",
          contractFor("IDEMPOTENT", { maxAttempts: 6, backoff, errorRules: RULES }),
          alice,
          T0,
        );
        await putContract(
          ledger,
          "m.search",
          contractFor("PURE", { maxAttempts: 6, backoff, errorRules: RULES }),
          alice,
          T0,
        );
        const deadline = allowance.deadlineMs === null ? null : T0.getTime() + allowance.deadlineMs;
        await putRunAllowance(
          ledger,
          "model-run",
          {
            maxRetries: allowance.maxRetries,
            maxBackoffMs: allowance.maxBackoffMs,
            deadlineAt: deadline === null ? null : new Date(deadline).toISOString(),
          },
          agent,
          T0,
        );
        let clock = T0.getTime();
        const ids: (string | undefined)[] = [];
        let retries = 0;
        let backoffUsed = 0;
        for (const step of steps) {
          clock += step.advanceMs;
          const now = new Date(clock);
          let id = ids[step.op];
          if (id === undefined) {
            const tool = TOOLS[step.op % 2] ?? "m.search";
            const plan = { tool, args: { op: step.op }, runId: "model-run", idempotencyKey: `k${step.op}` };
            id = (await planOperation(ledger, plan, agent, now)).operation.id;
            ids[step.op] = id;
          }
          const row = await t.db.operation.findUniqueOrThrow({ where: { id } });
          // A PURE operation whose outcome was lost is retried without a failure report: counted when it leaves.
          const lostPure = row.phase === "UNKNOWN" && row.tool === "m.search";
          const ready = row.phase === "PLANNED" || row.phase === "RETRY_SCHEDULED" || lostPure;
          if (!ready || (row.notBefore !== null && row.notBefore.getTime() > clock)) continue;
          const { fence } = await claimLease(ledger, id, { workerId: "w", leaseMs: 60_000 }, agent, now);
          const dispatched = await dispatchOperation(ledger, id, { fence }, agent, now);
          if ("refused" in dispatched) {
            const after = await t.db.operation.findUniqueOrThrow({ where: { id } });
            // A retry the run refuses as it leaves ends the operation, with the run named as the reason.
            if (dispatched.refused.extra.decision?.runAllowance) expect(after.phase).toBe("FAILED");
            continue;
          }
          if (dispatched.operation.attempt > 1) {
            if (deadline !== null) expect(clock).toBeLessThanOrEqual(deadline);
            if (lostPure) retries += 1;
            stats.dispatchedRetries += 1;
          }
          const answer = ANSWERS[step.answer] ?? "confirmed";
          const input =
            answer === "confirmed" || answer === "unknown"
              ? { fence, result: answer }
              : { fence, result: "failed" as const, error: answer };
          const view = await reportOutcome(ledger, id, input, agent, now, () => 0.5);
          if (view.phase === "RETRY_SCHEDULED") {
            retries += 1;
            const wait = new Date(view.notBefore ?? now).getTime() - clock;
            backoffUsed += wait;
            if (deadline !== null) expect(clock + wait).toBeLessThanOrEqual(deadline);
          }
          if (typeof answer === "object") {
            const matched = RULES.findIndex((rule) => matches(rule, answer));
            const lastError = (await t.db.operation.findUniqueOrThrow({ where: { id } })).lastError ?? "";
            if (matched >= 0) expect(lastError).toContain(`rule ${matched + 1} of ${row.tool}`);
            else expect(lastError).not.toContain("rule ");
            stats.matched += matched >= 0 ? 1 : 0;
          }
          stats.reports += 1;
        }
        stats.retries += retries;
        if (allowance.maxRetries !== null) expect(retries).toBeLessThanOrEqual(allowance.maxRetries);
        if (allowance.maxBackoffMs !== null) expect(backoffUsed).toBeLessThanOrEqual(allowance.maxBackoffMs);
        const stored = await t.db.runAllowance.findUniqueOrThrow({ where: { runId: "model-run" } });
        expect(stored.retriesUsed).toBe(retries);
        expect(stored.backoffUsedMs).toBe(backoffUsed);
      }),
      { numRuns: runs },
    );
  },
);
