// The background runner of bulk jobs. A job is in the database, so it survives a restart: a runner takes a running
// job's lease by a conditional update on its version, works through its items in preview order, a batch at a time
// with a pause between batches (so the API stays responsive), renews the lease with each batch's results, and checks
// for a cancellation between batches. A job whose runner died (its lease ran out) is taken over by the next runner;
// two runners never hold one job's lease at once.
import { randomUUID } from "node:crypto";
import type { Span } from "@opentelemetry/api";
import type { BulkAction, BulkItem, Operation } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import type { OutboundOptions } from "@/lib/services/outbound/send";
import { LEDGER } from "@/lib/platform/telemetry/attributes";
import { linkToCaller, rootSpan, touchedOperation } from "@/lib/platform/telemetry/root-span";
import { traceOf, type Actor } from "../actor";
import { auditedTransaction } from "../audit/audited-transaction";
import { withWriteRetry } from "../write-retry";
import { actOnItem, jobMarker, type BulkJobContext, type ItemOutcome } from "./act";
import { jobActorRefusal } from "./job-actor";
import type { BulkPreviewRequest } from "./request";
import { pruneExpiredPreviews } from "./retention";
import { inPool } from "../in-pool";

/** How often an idle runner prunes the items of long-expired previews. */
const PRUNE_INTERVAL_MS = 3_600_000;

export interface BulkRunnerOptions {
  /** Items per batch (default 25). */
  batchSize?: number;
  /** Pause after each batch, so other requests get the database (default 200 ms). */
  pauseMs?: number;
  /** How often an idle runner looks for a job (default 1 s). */
  pollMs?: number;
  /** How long a lease lasts without being renewed (default 30 s). */
  leaseMs?: number;
  /** Items of a batch in flight at once (default 2). */
  concurrency?: number;
  /** How provider lookups go out (tests: loopback); lib/outbound's defaults otherwise. */
  outbound?: OutboundOptions;
  /** This runner's name in the lease (default: a fresh id). */
  owner?: string;
  clock?: () => Date;
}

export type StepResult = "idle" | "batch" | "finished";

interface Held {
  job: BulkAction;
  version: number;
}

export class BulkRunner {
  readonly owner: string;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;

  constructor(
    private readonly ledger: Ledger,
    private readonly options: BulkRunnerOptions = {},
  ) {
    this.owner = options.owner ?? `bulk-runner-${randomUUID()}`;
    this.batchSize = options.batchSize ?? 25;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.concurrency = options.concurrency ?? 2;
  }

  /** Takes the lease of a running job that this runner holds or nobody holds live; null when there is none. */
  private async take(now: Date): Promise<Held | null> {
    const candidates = await this.ledger.db.bulkAction.findMany({
      where: {
        status: "running",
        OR: [{ leaseOwner: this.owner }, { leaseExpiresAt: null }, { leaseExpiresAt: { lte: now } }],
      },
      orderBy: { startedAt: "asc" },
      take: 5,
    });
    for (const job of candidates) {
      const taken = await withWriteRetry(() =>
        this.ledger.db.bulkAction.updateMany({
          where: { id: job.id, version: job.version, status: "running" },
          data: {
            leaseOwner: this.owner,
            leaseExpiresAt: new Date(now.getTime() + this.leaseMs),
            version: { increment: 1 },
          },
        }),
      );
      if (taken.count === 1) return { job, version: job.version + 1 };
    }
    return null;
  }

  /**
   * One step: take a job and run its next batch, or finish it. Tests call this directly; the loop calls it forever.
   * A step that holds a job is the root span `opledger bulk {action}`, linked to the request that started the job when
   * it came with a traceparent; an idle step opens none.
   */
  async step(now: Date = this.now()): Promise<StepResult> {
    const held = await this.take(now);
    if (!held) return "idle";
    const { job } = held;
    const actor = JSON.parse(job.actorJson) as Actor;
    const attributes = { [LEDGER.bulkJobId]: job.jobId ?? job.id, [LEDGER.bulkAction]: job.action };
    return rootSpan(`opledger bulk ${job.action}`, attributes, (span) => this.stepHeld(held, actor, now, span), [
      ...linkToCaller(traceOf(actor)),
    ]);
  }

  private async stepHeld(held: Held, actor: Actor, now: Date, span: Span): Promise<StepResult> {
    const { job } = held;
    const end = async (status: "done" | "cancelled", refused?: string): Promise<StepResult> => {
      const ended = await this.finish(held, status, now, refused);
      if (ended) span.setAttribute(LEDGER.bulkEnded, status);
      return ended ? "finished" : "idle";
    };
    if (job.cancelRequested) return end("cancelled");
    const refused = await jobActorRefusal(this.ledger, actor);
    if (refused) return end("cancelled", refused);
    const items = await this.ledger.db.bulkItem.findMany({
      where: { bulkId: job.id, result: null, skip: false },
      orderBy: { position: "asc" },
      take: this.batchSize,
    });
    if (items.length === 0) return end("done");
    const outcomes = await this.runBatch(job, items, now);
    await this.record(held, items, outcomes, now);
    const results = [...outcomes.values()].map((o) => o.result);
    span.setAttributes({
      [LEDGER.bulkItems]: items.length,
      [LEDGER.bulkActed]: results.filter((r) => r === "acted").length,
      [LEDGER.bulkStale]: results.filter((r) => r === "stale").length,
      [LEDGER.bulkFailed]: results.filter((r) => r === "failed").length,
    });
    return "batch";
  }

  private now(): Date {
    return this.options.clock?.() ?? new Date();
  }

  private context(job: BulkAction): BulkJobContext {
    return {
      jobId: job.jobId ?? job.id,
      request: JSON.parse(job.requestJson) as BulkPreviewRequest,
      reason: job.reason,
      actor: JSON.parse(job.actorJson) as Actor,
      ...(this.options.outbound ? { outbound: this.options.outbound } : {}),
    };
  }

  private async runBatch(job: BulkAction, items: BulkItem[], now: Date): Promise<Map<number, ItemOutcome>> {
    const ctx = this.context(job);
    const ops = new Map(
      (await this.ledger.db.operation.findMany({ where: { id: { in: items.map((i) => i.operationId) } } })).map(
        (op): [string, Operation] => [op.id, op],
      ),
    );
    const changed = items.filter((i) => ops.get(i.operationId)?.version !== i.seenVersion).map((i) => i.operationId);
    const ours = await this.actedByThisJob(ctx.jobId, changed);
    const outcomes = new Map<number, ItemOutcome>();
    await inPool(items, this.concurrency, async (item) => {
      const op = ops.get(item.operationId);
      if (!op) {
        outcomes.set(item.position, { result: "failed", detail: "not_found: the operation no longer exists" });
      } else if (op.version !== item.seenVersion) {
        outcomes.set(
          item.position,
          ours.has(op.id)
            ? { result: "acted", detail: "acted on by this job before a restart" }
            : {
                result: "stale",
                detail:
                  `changed since the preview (was ${item.phase} at version ${item.seenVersion}, ` +
                  `now ${op.phase} at version ${op.version}); left untouched`,
              },
        );
      } else {
        const outcome = await actOnItem(this.ledger, ctx, op, now);
        if (outcome.result === "acted") touchedOperation(op.id);
        outcomes.set(item.position, outcome);
      }
    });
    return outcomes;
  }

  /** The operations whose audit trail already has this job's record: acted on before the runner stopped. */
  private async actedByThisJob(jobId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.ledger.db.auditEvent.findMany({
      where: { subjectType: "operation", subjectId: { in: ids }, reason: { contains: jobMarker(jobId) } },
      select: { subjectId: true },
    });
    return new Set(rows.map((r) => r.subjectId));
  }

  /** Writes a batch's results and counts and renews the lease, if this runner still holds it. */
  private async record(held: Held, items: BulkItem[], outcomes: Map<number, ItemOutcome>, now: Date): Promise<void> {
    const counts = { acted: 0, skipped: 0, stale: 0, failed: 0 };
    for (const outcome of outcomes.values()) counts[outcome.result]++;
    await withWriteRetry(() =>
      this.ledger.db.$transaction(async (tx) => {
        const renewed = await tx.bulkAction.updateMany({
          where: { id: held.job.id, version: held.version, leaseOwner: this.owner },
          data: {
            acted: { increment: counts.acted },
            skipped: { increment: counts.skipped },
            stale: { increment: counts.stale },
            failed: { increment: counts.failed },
            leaseExpiresAt: new Date(now.getTime() + this.leaseMs),
            version: { increment: 1 },
          },
        });
        // Another runner took the job over: it will find these operations changed, with this job's audit records.
        if (renewed.count !== 1) return;
        for (const item of items) {
          const outcome = outcomes.get(item.position);
          if (!outcome) continue;
          await tx.bulkItem.update({
            where: { bulkId_position: { bulkId: held.job.id, position: item.position } },
            data: { result: outcome.result, detail: outcome.detail?.slice(0, 1000) ?? null },
          });
        }
      }),
    );
  }

  /** Ends the job with its counts and the one audit record the bulk.finished event is made from. */
  private async finish(held: Held, status: "done" | "cancelled", now: Date, stoppedBecause?: string): Promise<boolean> {
    const { job } = held;
    return auditedTransaction(this.ledger, async (tx, audit) => {
      const ended = await tx.bulkAction.updateMany({
        where: { id: job.id, version: held.version, leaseOwner: this.owner },
        data: { status, finishedAt: now, leaseOwner: null, leaseExpiresAt: null, version: { increment: 1 } },
      });
      if (ended.count !== 1) return false;
      const final = await tx.bulkAction.findUniqueOrThrow({ where: { id: job.id } });
      const pending = await tx.bulkItem.count({ where: { bulkId: job.id, result: null } });
      audit([
        {
          subjectType: "bulk",
          subjectId: job.jobId ?? job.id,
          actor: JSON.parse(job.actorJson) as Actor,
          action: "bulk.finished",
          reason: job.reason,
          data: {
            status,
            previewId: job.id,
            action: job.action,
            total: final.matched,
            acted: final.acted,
            skipped: final.skipped,
            stale: final.stale,
            failed: final.failed,
            notRun: pending,
            ...(stoppedBecause ? { stoppedBecause } : {}),
          },
          at: now,
        },
      ]);
      return true;
    });
  }
}

/**
 * Starts the runner loop in this process: a batch, a pause, the next; an idle runner looks again every pollMs.
 * Answers a function that stops it.
 */
export function startBulkRunner(ledger: Ledger, options: BulkRunnerOptions = {}): () => void {
  const runner = new BulkRunner(ledger, options);
  const pauseMs = options.pauseMs ?? 200;
  const pollMs = options.pollMs ?? 1_000;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let lastPrune = 0;
  const loop = async (): Promise<void> => {
    let wait = pollMs;
    try {
      const step = await runner.step();
      wait = step === "idle" ? pollMs : pauseMs;
      if (step === "idle" && Date.now() - lastPrune >= PRUNE_INTERVAL_MS) {
        lastPrune = Date.now();
        await pruneExpiredPreviews(ledger, new Date());
      }
    } catch (error) {
      console.error("opledger: bulk runner step failed:", error instanceof Error ? error.stack : error);
    }
    if (!stopped) timer = setTimeout(() => void loop(), wait);
  };
  timer = setTimeout(() => void loop(), 0);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
