// One case of the server-side crash table, before the recovery: the agent drives the operation into its window
// against the doomed server, which dies there (or, for the take-over race, the first worker stalls).
import fs from "node:fs";
import { expect } from "@playwright/test";
import { api, expectJson, uniqueId } from "../fixtures/api";
import {
  doneOf,
  doomedWorker,
  DOOMED_LEASE_MS,
  LOST_ANSWER_TIMEOUT_MS,
  PERSON,
  PROVIDER_TIMEOUT_MS,
  type CaseContext,
  type Crash,
  type PreparedCase,
} from "./crash-case";
import type { ServerWindow } from "./server-windows";
import { describeExit, runWorker, startWorker, type WorkerExit } from "./worker-process";

/**
 * The lease of an agent that dies before the server: long enough that every case of the window has reached its step
 * before the first lease runs out and the server dies at the sweep (a death that would cut the others short).
 */
const FIRST_DEATH_LEASE_MS = 10_000;

/** What the case did before the server died; completed into a Crash once it is back. */
export type Provoked = { approvals: number } | { crash: Crash };

/** The agent ran until the ledger stopped answering: a clean exit after an `unreachable` event, never a hang. */
function expectUnreachable(exit: WorkerExit): void {
  expect(exit.timedOut, `the agent hung:\n${describeExit(exit)}`).toBe(false);
  expect(
    exit.code === 0 && exit.events.at(-1)?.type === "unreachable",
    `the agent must lose the ledger mid-run:\n${describeExit(exit)}`,
  ).toBe(true);
}

function agent(ctx: CaseContext, prepared: PreparedCase, providerTimeoutMs = PROVIDER_TIMEOUT_MS) {
  return runWorker(
    {
      ...prepared.base,
      baseUrl: ctx.baseUrl,
      workerId: uniqueId("agent"),
      leaseMs: DOOMED_LEASE_MS,
      providerTimeoutMs,
      killAt: null,
    },
    ctx.inProcess,
  );
}

/** Waits until the process is stopped (state T in /proc/PID/stat), for at most 10 s. */
async function untilStopped(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state follows the command name, which is in parentheses and may hold spaces.
    if (/^[Tt]$/.test(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3))) return;
    if (Date.now() > deadline) throw new Error(`worker ${pid} did not stop where it was told to`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A first worker that claims and stalls; it goes on only when the recovery worker is let go too (crash-case.ts). */
async function stalledWorker(ctx: CaseContext, prepared: PreparedCase): Promise<Crash> {
  const stalled = startWorker({
    ...prepared.base,
    baseUrl: ctx.baseUrl,
    workerId: uniqueId("stalled"),
    leaseMs: DOOMED_LEASE_MS,
    providerTimeoutMs: PROVIDER_TIMEOUT_MS,
    killAt: null,
    stopAt: "claimed",
  });
  const claimed = await stalled.reached("claimed");
  return {
    operationId: claimed.operationId,
    deadFence: claimed.fence,
    killedBy: "stalled worker",
    approvals: 0,
    resume: async (recovery) => {
      await recovery.reached("planned");
      // A worker writes its step and then stops itself: a SIGCONT sent in between is lost and it stops for good.
      await untilStopped(stalled.pid);
      await untilStopped(recovery.pid);
      process.kill(stalled.pid, "SIGCONT");
      process.kill(recovery.pid, "SIGCONT");
      return doneOf(await stalled.exit).status;
    },
  };
}

/** Drives one case into its window; the server's death is awaited by the caller, for all of a window's cases. */
export async function provoke(ctx: CaseContext, prepared: PreparedCase, window: ServerWindow): Promise<Provoked> {
  switch (window.approach) {
    case "agent":
      expectUnreachable(await agent(ctx, prepared));
      return { approvals: 0 };
    case "agent_reconciles":
      ctx.provider.arm(prepared.idempotencyKey, { kind: "lose_answer" });
      expectUnreachable(await agent(ctx, prepared, LOST_ANSWER_TIMEOUT_MS));
      return { approvals: 0 };
    case "person_approves": {
      const done = doneOf(await agent(ctx, prepared));
      expect(done.status, `the agent ended ${done.phase} with ${done.decision}`).toBe("needs_approval");
      const person = api(ctx.request, ctx.approver.key);
      const answer = await person
        .approve(done.operationId, { actor: PERSON, reason: "one attempt, as the contract asks" })
        .then(
          (result) => `answered ${result.status}`,
          () => null,
        );
      expect(answer, "the server must die holding the approval's answer").toBeNull();
      return { approvals: 1 };
    }
    case "agent_dies_after_dispatch":
    case "agent_dies_after_commit": {
      const killAt = window.approach === "agent_dies_after_dispatch" ? "dispatched" : "provider_committed";
      const crash = await doomedWorker(ctx, prepared, killAt, FIRST_DEATH_LEASE_MS);
      return { crash: { ...crash, killedBy: "worker, then the server" } };
    }
    case "stall_then_race":
      return { crash: await stalledWorker(ctx, prepared) };
  }
}

/**
 * Completes the crash once the server is back: the operation is found by its tool (the agent may never have learnt its
 * id), and the run that was cut off held the fence the ledger shows now.
 */
export async function crashOf(ctx: CaseContext, prepared: PreparedCase, provoked: Provoked): Promise<Crash> {
  if ("crash" in provoked) return provoked.crash;
  const client = api(ctx.request);
  const listed = expectJson(await client.list({ tool: prepared.tool }), 200);
  expect(listed.items, "one operation for the case's tool").toHaveLength(1);
  const op = listed.items[0]!;
  return { operationId: op.id, deadFence: op.fence, killedBy: "server", approvals: provoked.approvals };
}
