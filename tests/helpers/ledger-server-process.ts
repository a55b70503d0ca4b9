// A server process for cross-process race tests: for each job line on stdin it opens its own ledger on the job's
// database, says "ready", waits for "go", runs the job and prints its result as one JSON line. Its test hooks are on
// (ledger-processes.ts starts it so), and a job may name the race barrier its contested statement waits at.
import { createInterface } from "node:readline";
import { openLedger } from "@/lib/ledger/ledger";
import { approveOperation } from "@/lib/ledger/commands/approval";
import { claimLease } from "@/lib/ledger/commands/lease";
import { planOperation } from "@/lib/ledger/commands/plan";
import { LedgerError } from "@/lib/ledger/errors";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import { agent, alice, bob } from "./ledger-fixtures";

export type ServerJob =
  | { kind: "sweep"; now: string }
  | { kind: "approve"; ids: string[]; person: "alice" | "bob"; now: string }
  | { kind: "claim"; ids: string[]; workerId: string; now: string }
  | { kind: "plan"; count: number; tool: string; idempotencyKey: string; now: string }
  | { kind: "confirm"; items: { id: string; fence: number }[]; now: string };

/**
 * Per job: how many operations a sweep recovered, or per operation (per plan: "created" or "resolved") "resolved" or
 * the LedgerError code.
 */
export type ServerResult = { recovered: number } | { results: string[] };

async function settle(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (error) {
    if (error instanceof LedgerError) return error.code;
    throw error;
  }
}

async function run(url: string, job: ServerJob, go: () => Promise<unknown>): Promise<ServerResult> {
  const ledger = openLedger(url, { poolSize: 4 });
  try {
    await ledger.db.operation.count();
    process.stdout.write("ready\n");
    await go();
    const now = new Date(job.now);
    switch (job.kind) {
      case "sweep":
        return { recovered: await recoverExpiredLeases(ledger, now) };
      case "approve": {
        const person = job.person === "alice" ? alice : bob;
        const results = await Promise.all(
          job.ids.map((id) =>
            settle(
              approveOperation(ledger, id, { reason: `checked by ${person.label}` }, person, now, { fourEyes: true }),
            ),
          ),
        );
        return { results };
      }
      case "claim": {
        const input = { workerId: job.workerId, leaseMs: 60_000 };
        const results = await Promise.all(job.ids.map((id) => settle(claimLease(ledger, id, input, agent, now))));
        return { results };
      }
      case "plan": {
        const input = { tool: job.tool, args: { amount: 5 }, idempotencyKey: job.idempotencyKey };
        const plans = await Promise.all(
          Array.from({ length: job.count }, () => planOperation(ledger, input, agent, now)),
        );
        return { results: plans.map((plan) => (plan.created ? "created" : "resolved")) };
      }
      case "confirm": {
        const results: string[] = [];
        for (const { id, fence } of job.items) {
          results.push(
            await settle(reportOutcome(ledger, id, { fence, result: "confirmed", providerId: `p-${id}` }, agent, now)),
          );
        }
        return { results };
      }
      default: {
        const unreachable: never = job;
        throw new Error(`unknown job ${JSON.stringify(unreachable)}`);
      }
    }
  } finally {
    await ledger.close();
  }
}

/**
 * Lines: `{"url": ..., "job": ..., "barrier"?: ...}`, then "go" once this process said "ready"; the process ends with
 * its stdin.
 */
async function serve(): Promise<void> {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const next = async (): Promise<string | null> => {
    const line = await lines.next();
    return line.done ? null : line.value;
  };
  for (let line = await next(); line !== null; line = await next()) {
    const { url, job, barrier } = JSON.parse(line) as { url: string; job: ServerJob; barrier?: string };
    if (barrier) process.env.OPLEDGER_RACE_BARRIER = barrier;
    try {
      const result = await run(url, job, next);
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } finally {
      delete process.env.OPLEDGER_RACE_BARRIER;
    }
  }
}

serve().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
