// One server process for cross-process race tests: opens its own client on the database, says "ready", waits for "go" on stdin, runs one job and prints its result as JSON.
import { createInterface } from "node:readline";
import { createDb } from "@/lib/db";
import { approveOperation } from "@/lib/ledger/approval";
import { LedgerError } from "@/lib/ledger/errors";
import { reportOutcome } from "@/lib/ledger/outcome";
import { recoverExpiredLeases } from "@/lib/ledger/sweep";
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

async function run(url: string, job: ServerJob): Promise<ServerResult> {
  const client = createDb(url, 4);
  try {
    await client.operation.count();
    process.stdout.write("ready\n");
    await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));
    const now = new Date(job.now);
    switch (job.kind) {
      case "sweep":
        return { recovered: await recoverExpiredLeases(client, now) };
      case "approve": {
        const person = job.person === "alice" ? alice : bob;
        const results = await Promise.all(job.ids.map((id) => settle(approveOperation(client, id, { reason: `checked by ${person.label}` }, person, now, { fourEyes: true }))));
        return { results };
      }
      case "confirm": {
        const results: string[] = [];
        for (const { id, fence } of job.items) {
          results.push(await settle(reportOutcome(client, id, { fence, result: "confirmed", providerId: `p-${id}` }, agent, now)));
        }
        return { results };
      }
      default: {
        const unreachable: never = job;
        throw new Error(`unknown job ${JSON.stringify(unreachable)}`);
      }
    }
  } finally {
    await client.$disconnect();
  }
}

const [url, job] = process.argv.slice(2);
if (!url || !job) throw new Error("usage: ledger-server-process.ts <database url> <job json>");
run(url, JSON.parse(job) as ServerJob).then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
