// One tool call's full lifecycle through the ledger service, called directly: plan, claim, dispatch, outcome.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../../lib/ledger/actor";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { claimLease } from "@/lib/ledger/commands/lease";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { planOperation } from "@/lib/ledger/commands/plan";
import { AGENTS, BENCH_TOOL, LEASE_MS, benchArgs } from "./workload";

export const BENCH_ACTOR: Actor = { type: "system", id: "system", label: "benchmark" };

export async function ledgerLifecycle(ledger: Ledger, agent: number, n: number): Promise<void> {
  const workerId = `bench-agent-${agent}`;
  const { operation } = await planOperation(
    ledger,
    { tool: BENCH_TOOL, args: benchArgs(agent, n), agentId: workerId },
    BENCH_ACTOR,
    new Date(),
  );
  const { fence } = await claimLease(ledger, operation.id, { workerId, leaseMs: LEASE_MS }, BENCH_ACTOR, new Date());
  await finishLifecycle(ledger, operation.id, fence);
}

/**
 * The same lifecycle in three steps: the plan takes the lease (the claim extension, docs/api-extensions.md); `effect`
 * is the provider call between dispatch and outcome (none when absent).
 */
export async function ledgerLifecycleClaimOnPlan(
  ledger: Ledger,
  agent: number,
  n: number,
  effect?: (args: ReturnType<typeof benchArgs>) => Promise<string>,
): Promise<void> {
  const workerId = `bench-agent-${agent}`;
  const args = benchArgs(agent, n);
  const { operation } = await planOperation(
    ledger,
    { tool: BENCH_TOOL, args, agentId: workerId, claim: { workerId, leaseMs: LEASE_MS } },
    BENCH_ACTOR,
    new Date(),
  );
  await finishLifecycle(ledger, operation.id, operation.fence, effect && (() => effect(args)));
}

/** Dispatch, the effect if there is one, and a confirmed outcome with the lease's fence. */
async function finishLifecycle(
  ledger: Ledger,
  id: string,
  fence: number,
  effect?: () => Promise<string>,
): Promise<void> {
  const dispatched = await dispatchOperation(ledger, id, { fence }, BENCH_ACTOR, new Date());
  if ("refused" in dispatched) throw dispatched.refused;
  const providerId = effect ? await effect() : `ch_${id}`;
  const done = await reportOutcome(ledger, id, { fence, result: "confirmed", providerId }, BENCH_ACTOR, new Date());
  if (done.phase !== "CONFIRMED") throw new Error(`benchmark lifecycle ended ${done.phase}, not CONFIRMED`);
}

/** Runs `agents` concurrent loops of lifecycles until the deadline; returns how many completed. */
export async function runAgents(
  agents: number,
  deadline: number,
  lifecycle: (agent: number, n: number) => Promise<unknown>,
): Promise<number> {
  let completed = 0;
  await Promise.all(
    Array.from({ length: agents }, async (_, agent) => {
      for (let n = 0; Date.now() < deadline; n++) {
        await lifecycle(agent, n);
        completed++;
      }
    }),
  );
  return completed;
}

/**
 * Lifecycles per second of the ledger called in-process by the benchmark's agents for `ms` (the lifecycles under way
 * then finish and count); agent a's n-th lifecycle has the arguments of number `first + n`.
 */
export async function ledgerLifecycleRate(ledger: Ledger, ms: number, first: number): Promise<number> {
  const started = performance.now();
  const done = await runAgents(AGENTS, Date.now() + ms, (agent, n) => ledgerLifecycle(ledger, agent, first + n));
  return done / ((performance.now() - started) / 1000);
}

/** Runs `agents` concurrent loops until `total` lifecycles have completed; returns the seconds it took. */
export async function runCount(
  agents: number,
  total: number,
  lifecycle: (agent: number, n: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: agents }, async (_, agent) => {
      for (let n = next++; n < total; n = next++) await lifecycle(agent, n);
    }),
  );
  return (performance.now() - started) / 1000;
}
