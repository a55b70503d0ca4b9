// The bulk specs' hands on the ledger, run with tsx in a process of its own (Playwright's loader cannot load the
// Prisma client): seeds an outage straight through the ledger's commands, starts a bulk job as a person, and reports
// what was written. Prints one JSON document.
//   tsx e2e/bulk/support/bulk-ledger.ts seed-unknowns <databaseUrl> <tool> <runId> <count>
//   tsx e2e/bulk/support/bulk-ledger.ts seed-waiting <databaseUrl> <tool> <runId> <count>
//   tsx e2e/bulk/support/bulk-ledger.ts start <databaseUrl> <action> <runId> <personEmail> <reason>
//   tsx e2e/bulk/support/bulk-ledger.ts report <databaseUrl> <runId> <jobId>
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import type { Actor } from "@/lib/ledger/actor";
import { runBulk } from "@/lib/ledger/bulk/job";
import { previewBulk } from "@/lib/ledger/bulk/preview";
import { bulkPreviewSchema } from "@/lib/ledger/bulk/request";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { seedUnknowns, seedWaiting } from "./outage";

async function person(ledger: Ledger, email: string): Promise<Actor> {
  const user = await ledger.db.user.findUniqueOrThrow({ where: { email } });
  return { type: "user", id: user.id, label: user.email, role: user.role as "operator" | "admin" };
}

/** What the specs check after a job: its row and audit, the run's phases and evidence, and the per-operation audit. */
async function report(ledger: Ledger, runId: string, jobId: string) {
  const job = await ledger.db.bulkAction.findUnique({ where: { jobId } });
  const ops = await ledger.db.operation.findMany({
    where: { runId },
    select: { id: true, phase: true, evidence: true },
  });
  const tally = (values: string[]) =>
    values.reduce<Record<string, number>>((t, v) => ({ ...t, [v]: (t[v] ?? 0) + 1 }), {});
  const marked = await ledger.db.auditEvent.findMany({
    where: { subjectType: "operation", reason: { contains: `(bulk ${jobId})` } },
    select: { subjectId: true, action: true },
  });
  const jobAudit = await ledger.db.auditEvent.findMany({
    where: { subjectId: jobId },
    orderBy: { id: "asc" },
    select: { action: true, data: true },
  });
  return {
    job,
    phases: tally(ops.map((o) => o.phase)),
    evidence: tally(ops.map((o) => o.evidence)),
    /** Operation id → how many of its audit records name this job. */
    markedPerOperation: tally(marked.map((m) => m.subjectId)),
    markedActions: tally(marked.map((m) => m.action)),
    jobAudit: jobAudit.map((a) => ({ action: a.action, data: a.data ? (JSON.parse(a.data) as unknown) : null })),
  };
}

async function main(): Promise<void> {
  const [command, url, ...args] = process.argv.slice(2);
  if (!command || !url) throw new Error("usage: bulk-ledger.ts <command> <databaseUrl> ...");
  const ledger = openLedger(url);
  if (url.startsWith("file:")) await applySqliteSettings(ledger.db);
  try {
    let out: unknown;
    switch (command) {
      case "seed-unknowns": {
        const [tool = "", runId = "", count = "0"] = args;
        await seedUnknowns(ledger, { tool, runId, count: Number(count), keyPrefix: `${tool}-k` });
        const rows = await ledger.db.operation.findMany({
          where: { tool, runId },
          select: { id: true, idempotencyKey: true },
          orderBy: { id: "asc" },
        });
        out = rows;
        break;
      }
      case "seed-waiting": {
        const [tool = "", runId = "", count = "0"] = args;
        out = (await seedWaiting(ledger, { tool, runId, count: Number(count) })).sort();
        break;
      }
      case "start": {
        const [action, runId, email = "", reason = "e2e"] = args;
        const actor = await person(ledger, email);
        const request = bulkPreviewSchema.parse({ action, filter: { runId } });
        const preview = await previewBulk(ledger, request, actor, new Date());
        const { jobId } = await runBulk(ledger, { previewId: preview.previewId, reason }, actor, new Date());
        out = { previewId: preview.previewId, matched: preview.matched, acting: preview.items.length, jobId };
        break;
      }
      case "report": {
        const [runId = "", jobId = ""] = args;
        out = await report(ledger, runId, jobId);
        break;
      }
      default:
        throw new Error(`unknown command ${command}`);
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await ledger.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
