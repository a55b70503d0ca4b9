// A run's allowance (docs/run-allowance.md): an agent key declares a deadline and a retry and backoff budget for one of
// its runs; the outcome and dispatch commands spend it (run-spend.ts) and the gate refuses what it cannot give.
import { z } from "zod";
import type { RunAllowance } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import type * as wire from "@/lib/platform/wire/answers";
import type { Actor } from "../actor";
import { auditedTransaction } from "../audit/audited-transaction";
import { LedgerError } from "../errors";

const DAY_MS = 86_400_000;

/** PUT /api/v1/runs/{runId}: the bounds replace the run's; one left out (or null) is no bound. */
export const runAllowanceBody = z
  .object({
    deadlineAt: z.iso.datetime({ offset: true }).nullable().optional(),
    maxRetries: z.int().min(0).max(100_000).nullable().optional(),
    maxBackoffMs: z
      .int()
      .min(0)
      .max(30 * DAY_MS)
      .nullable()
      .optional(),
  })
  .strict()
  .refine((b) => b.deadlineAt !== undefined || b.maxRetries !== undefined || b.maxBackoffMs !== undefined, {
    message: "give at least one of deadlineAt, maxRetries and maxBackoffMs (null for no bound)",
  });
export type RunAllowanceBody = z.infer<typeof runAllowanceBody>;

/** Run ids are the agent's own words; the same shape the plan body accepts. */
export const RUN_ID = /^[^\s/]{1,200}$/;

export type RunAllowanceView = wire.RunAllowance;

export function runAllowanceView(row: RunAllowance, now: Date): RunAllowanceView {
  const left = (max: number | null, used: number) => (max === null ? null : Math.max(0, max - used));
  return {
    runId: row.runId,
    deadlineAt: row.deadlineAt?.toISOString() ?? null,
    maxRetries: row.maxRetries,
    maxBackoffMs: row.maxBackoffMs,
    used: { retries: row.retriesUsed, backoffMs: row.backoffUsedMs },
    remaining: {
      retries: left(row.maxRetries, row.retriesUsed),
      backoffMs: left(row.maxBackoffMs, row.backoffUsedMs),
      ms: row.deadlineAt === null ? null : Math.max(0, row.deadlineAt.getTime() - now.getTime()),
    },
    exhaustedAt: row.exhaustedAt?.toISOString() ?? null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The bounds a body declares, as they are stored: one left out (or null) is no bound. */
export function boundsOf(body: RunAllowanceBody): Pick<RunAllowance, "deadlineAt" | "maxRetries" | "maxBackoffMs"> {
  return {
    deadlineAt: body.deadlineAt ? new Date(body.deadlineAt) : null,
    maxRetries: body.maxRetries ?? null,
    maxBackoffMs: body.maxBackoffMs ?? null,
  };
}

/** Does the stored allowance have exactly the bounds the body declares? */
export function sameBounds(row: RunAllowance, body: RunAllowanceBody): boolean {
  const bounds = boundsOf(body);
  return (
    (row.deadlineAt?.getTime() ?? null) === (bounds.deadlineAt?.getTime() ?? null) &&
    row.maxRetries === bounds.maxRetries &&
    row.maxBackoffMs === bounds.maxBackoffMs
  );
}

function notYours(runId: string): LedgerError {
  return new LedgerError("not_found", `There is no run ${runId} of this API key.`);
}

/**
 * The key's own run: its allowance when the key declared one, and otherwise a run none of whose operations another key
 * planned. Another key's run is not found, whatever it holds.
 */
async function ownRun(db: Ledger["db"], runId: string, actor: Actor): Promise<RunAllowance | null> {
  if (actor.type !== "api_key") throw notYours(runId);
  const row = await db.runAllowance.findUnique({ where: { runId } });
  if (row) {
    if (row.keyId !== actor.id) throw notYours(runId);
    return row;
  }
  const foreign = await db.operation.findFirst({
    where: { runId, NOT: { plannedByKeyId: actor.id } },
    select: { id: true },
  });
  if (foreign) throw notYours(runId);
  return null;
}

/** The run's allowance as the console shows it to any signed-in person (the run page); null when it has none. */
export async function runAllowanceOf(ledger: Ledger, runId: string, now: Date): Promise<RunAllowanceView | null> {
  const row = await ledger.db.runAllowance.findUnique({ where: { runId } });
  return row ? runAllowanceView(row, now) : null;
}

export async function getRunAllowance(
  ledger: Ledger,
  runId: string,
  actor: Actor,
  now: Date,
): Promise<RunAllowanceView> {
  const row = await ownRun(ledger.db, runId, actor);
  if (!row) throw new LedgerError("not_found", `The run ${runId} has no allowance; PUT one to declare it.`);
  return runAllowanceView(row, now);
}

/** Declares or replaces a run's bounds (what was used is kept), audited as run.allowance_set. */
export async function putRunAllowance(
  ledger: Ledger,
  runId: string,
  body: RunAllowanceBody,
  actor: Actor,
  now: Date,
): Promise<{ allowance: RunAllowanceView; created: boolean }> {
  if (!RUN_ID.test(runId)) throw new LedgerError("invalid_body", "A run id is 1 to 200 characters, no spaces or /.");
  return auditedTransaction(ledger, async (tx, audit) => {
    const existing = await ownRun(tx as unknown as Ledger["db"], runId, actor);
    const bounds = boundsOf(body);
    const row = existing
      ? await tx.runAllowance.update({ where: { runId }, data: { ...bounds, updatedAt: now } })
      : await tx.runAllowance.create({ data: { runId, keyId: actor.id, ...bounds, createdAt: now, updatedAt: now } });
    audit([
      {
        subjectType: "run",
        subjectId: runId,
        actor,
        action: "run.allowance_set",
        reason:
          `deadline ${body.deadlineAt ?? "none"}, ${bounds.maxRetries ?? "unbounded"} retries, ` +
          `${bounds.maxBackoffMs ?? "unbounded"} ms of backoff`,
        data: { ...bounds, deadlineAt: body.deadlineAt ?? null },
        at: now,
      },
    ]);
    return { allowance: runAllowanceView(row, now), created: existing === null };
  });
}
