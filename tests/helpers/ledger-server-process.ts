// A server process for cross-process race tests: for each job line on stdin it opens its own ledger on the job's
// database, says "ready", waits for "go", runs the job and prints its result as one JSON line.
import { createInterface } from "node:readline";
import { openLedger } from "@/lib/ledger/ledger";
import { approveOperation } from "@/lib/ledger/commands/approval";
import { LedgerError } from "@/lib/ledger/errors";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import { agent, alice, bob } from "./ledger-fixtures";

export type ServerJob =
  | { kind: "sweep"; now: string }
  | { kind: "approve"; ids: string[]; person: "alice" | "bob"; now: string }
  | { kind: "confirm"; items: { id: string; fence: number }[]; now: string };

/** Per job: how many operations a sweep recovered, or per operation "resolved" or the LedgerError code. */
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

/** Lines: `{"url": ..., "job": ...}`, then "go" once this process said "ready"; the process ends with its stdin. */
async function serve(): Promise<void> {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const next = async (): Promise<string | null> => {
    const line = await lines.next();
    return line.done ? null : line.value;
  };
  for (let line = await next(); line !== null; line = await next()) {
    const { url, job } = JSON.parse(line) as { url: string; job: ServerJob };
    const result = await run(url, job, next);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}

serve().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
